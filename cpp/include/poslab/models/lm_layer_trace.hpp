// What every language model's traced forward pass records per layer (GPT-2's
// Gpt2LayerTrace, GPT-NeoX's GptNeoxLayerTrace): the CLI's trace writer and the wasm bindings
// read this one type.
#pragma once

#include <cstddef>
#include <functional>

#include "poslab/base/tensor.hpp"

namespace poslab {

struct LmLayerTrace {
  TensorF attention;                 // (H, T, T) causal softmax weights of every head
  TensorF ln_1_mean, ln_1_variance;  // (T,) what the first LayerNorm (ln_1, input_layernorm)
                                     // normalised x by
  TensorF ln_2_mean, ln_2_variance;  // (T,) the same for the second (ln_2,
                                     // post_attention_layernorm) on its input
  TensorF resid_attn_norm;  // (T,) ‖x + attn‖₂ per position: the residual after attention
                            // (when the residual is sequential)
  TensorF resid_mlp_norm;   // (T,) ‖x‖₂ per position after the whole layer
  // RoPE models asked for it (RopeLmOptions::pair_energy): (H, R/2 + 1), each head's score by
  // rotation pair (analysis/lens.hpp's rope_pair_energy); empty otherwise.
  TensorF pair_energy;
};

// Where a traced forward pass hands each layer's trace as soon as it is made, instead of keeping
// every layer's in its result: a reader that never holds more than one layer's (H, T, T).
using LmLayerVisitor = std::function<void(std::size_t layer, LmLayerTrace& trace)>;

}  // namespace poslab
