// Position surgery: interventions on how a trained model uses position, applied inside its
// forward pass (the weights are never edited), for every model with a rotation the lens reads
// (GPT-NeoX, the Llama family, the lab's checkpoints) and, for head ablation, the lab's
// score-bias and absolute-position models too.
//   zeroed pairs    rope_zero_pairs: ranges [A, B) of rotation pairs whose angle is 0, pair i in
//                   Hugging Face's order (i = 0 the highest frequency, θ_0 = 1) within the
//                   rotary width R; a zeroed pair keeps the scaling's attention factor
//                   (cos = factor, sin = 0), as RopeOptions::zero_pairs does.
//   NoPE layers     nope_layers: layers that skip the rotation entirely (no attention factor).
//   NoPE heads      nope_heads: (layer, head) pairs whose q and k are not rotated; with
//                   grouped-query heads, the query head's q and its own copy of the shared k.
//   bases           rope_base, rope_local_base: the rotation base of the full-attention layers
//                   (every layer of a model without local ones) and of Gemma 3's sliding ones.
//   ablated heads   ablate_heads: (layer, head) pairs whose attention output is zeroed before
//                   the output projection.
// They combine with each other and with a long-context scaling.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "poslab/positions/rope.hpp"

namespace poslab {

// One attention head: query head `head` of layer `layer`.
struct HeadRef {
  long long layer = 0, head = 0;
};

struct PositionSurgery {
  std::vector<PairRange> rope_zero_pairs;
  std::vector<long long> nope_layers;
  std::vector<HeadRef> nope_heads;
  double rope_base = 0.0;        // 0: the model's
  double rope_local_base = 0.0;  // 0: the model's
  std::vector<HeadRef> ablate_heads;

  bool empty() const;
  // Whether it changes a rotation (everything but head ablation).
  bool rotates() const;
};

// What a model offers surgery, for the checks.
struct SurgeryTarget {
  std::string model;           // "Llama": words the messages
  long long layers = 0;        // N
  long long heads = 0;         // H query heads
  long long rotary_pairs = 0;  // R/2; 0: the model has no rotation
  bool local_layers = false;   // layers turning at a base of their own (Gemma 3's sliding ones)
};

// Throws Error naming the field (ropeZeroPairs, nopeLayers, nopeHeads, ropeBase, ropeLocalBase,
// ablateHeads) for a range outside [0, R/2] or inverted, a layer or head the model lacks, a base
// that is not positive and finite, a local base on a model with no local layers, or rotation
// surgery on a model without a rotation.
void check_surgery(const PositionSurgery& surgery, const SurgeryTarget& target);

// The first layer the surgery changes: layers below it compute what the unmodified model does,
// so a pass may start there from the unmodified pass's residual stream (prefix reuse). `layers`
// when it changes none; 0 when it changes the rotation of every layer (pairs, bases).
std::size_t first_changed_layer(const PositionSurgery& surgery, std::size_t layers);

// What the surgery does to one layer of H heads.
struct LayerSurgery {
  bool nope = false;             // no rotation in this layer
  std::vector<char> nope_heads;  // (H,) 1: that head's q and k unrotated; empty: none
  std::vector<char> ablated;     // (H,) 1: that head's output zeroed; empty: none
  bool any_head_change() const { return !nope_heads.empty() || !ablated.empty(); }
};
LayerSurgery layer_surgery(const PositionSurgery& surgery, std::size_t layer, std::size_t heads);

// `rope` with the surgery's base (`local`: the local one) and zeroed pairs; the options point
// at surgery.rope_zero_pairs, which must outlive them.
RopeOptions surgery_rope(const RopeOptions& rope, const PositionSurgery& surgery,
                         bool local = false);

// The interventions in words, for names and notes: "zero pairs 0:4; NoPE layer 3".
std::string describe(const PositionSurgery& surgery);

}  // namespace poslab
