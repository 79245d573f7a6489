// The lab's model, forward and backward written by hand (llm.c style: each op's backward
// beside its forward, shapes in comments), float32 over poslab::fast::gemm. The model is
// exactly the issue's: x = s·wte[token] (+ wpe[pos] | + sinusoidal(pos)); per block
// h = LN1(x), qkv = h·W_qkv + b, heads split as GPT-2, q·kᵀ/√d + a score bias with RoPE
// applied to q and k (neox pairs, whole head), causal by index, softmax,
// x += merge(out)·W_o + b, x += GELU_tanh(LN2(x)·W_fc + b)·W_proj + b; logits = LN_f(x)·wteᵀ.
// Loss Σ mask·CE / Σ mask. Checked against finite differences in double
// (tests/cpp/train_ops_test.cpp) and an independent float64 autograd
// (tests/acceptance/train_vs_autograd.py).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "poslab/base/tensor.hpp"
#include "poslab/models/position_surgery.hpp"
#include "poslab/positions/rope.hpp"
#include "poslab/positions/score_bias.hpp"
#include "poslab/train/config.hpp"

namespace poslab::train {

// One named tensor inside a flat float buffer. Names and order are the dump's:
// wte.weight, wpe.weight (learned), rel_bias.weight (t5, (num_buckets, H)), then per layer l
// h.{l}.ln_1.weight|bias, h.{l}.attn.c_attn.weight|bias, h.{l}.attn.c_proj.weight|bias,
// h.{l}.ln_2.weight|bias, h.{l}.mlp.c_fc.weight|bias, h.{l}.mlp.c_proj.weight|bias, a score
// bias's tensors of the layer (h.{l}.attn.<name>, its term's kTensors in score_bias.hpp; a shared
// one, T5's rel_bias.weight, comes before the layers), CoPE's h.{l}.attn.cope_pos_emb
// (E / H, npos_max), FoX's h.{l}.attn.fox_w (H, E) and h.{l}.attn.fox_b (H,),
// h.{l}.attn.sinks (H,) with sinks, then ln_f.weight|bias.
// Matrices are stored (in, out), but FoX's fox_w (out, in) as the issue names it. `decay`:
// AdamW's weight decay applies (matrices only: the attention and MLP weights, FoX's gate; not
// embeddings, tables, a score bias's parameters, gains or biases).
struct ParamInfo {
  std::string name;
  Shape shape;
  std::size_t offset = 0;
  std::size_t numel = 0;
  bool decay = false;
  const score_bias::ParameterTensor* term = nullptr;  // a score bias's tensor: its init and domain
};

// A score-bias method's term (positions/score_bias.hpp) reads its parameters as one block: the
// tensors named here, adjacent in the layout (a shared one, as T5's table, is every layer's;
// FIRE's function is each layer's own). Empty for the other methods.
std::vector<std::string> score_bias_tensors(const ModelConfig& config, std::size_t layer);
// The number of values in that block.
std::size_t score_bias_parameter_count(const ModelConfig& config);

// The layout of `config`'s parameters, in order (no buffer allocated: what the working-set
// estimate counts and Parameters lays out).
std::vector<ParamInfo> parameter_layout(const ModelConfig& config);

// The parameters (or their gradients, or Adam's moments): one buffer, named views.
class Parameters {
 public:
  Parameters() = default;
  explicit Parameters(const ModelConfig& config);  // zeros, the layout of `config`
  const std::vector<ParamInfo>& info() const { return info_; }
  const ParamInfo& find(const std::string& name) const;  // Error if absent
  float* data() { return data_.data(); }
  const float* data() const { return data_.data(); }
  std::size_t size() const { return data_.size(); }
  float* at(const std::string& name) { return data_.data() + find(name).offset; }
  const float* at(const std::string& name) const { return data_.data() + find(name).offset; }

 private:
  std::vector<ParamInfo> info_;
  std::vector<float> data_;
};

// Seeded init: every matrix, embedding and table N(0, 0.02); LayerNorm gains 1; biases 0; a
// score bias's tensors as its term says (score_bias.hpp: as its paper's code starts them);
// attention sinks N(0, 0.02), as Hugging Face's gpt-oss (initializer_range); FoX's gate weight
// N(0, 0.02), as the authors' _init_weights, and its biases at fox_gate_bias (every one 0 when
// fox_decay_max is 0, as _init_weights leaves the authors' data-dependent gates); CoPE's
// position embeddings 0, as the authors' CoPE module starts them.
void init_parameters(Parameters& params, std::uint64_t seed, double fox_decay_max);

// FoX's gate biases at the start, the authors' fgate_bias_init (which they pair with their
// data-independent gates): head h of H starts at decay time T_h, log-spaced from kFoxDecayMin
// to decay_max (torch.linspace over log T), so b_h = −log(expm1(1/T_h)) and −1/log σ(b_h) = T_h:
// a key T_h tokens back starts e^−1 below the query's own. decay_max 0: every bias 0. At 0 the
// heads start at T = 1/log 2 ≈ 1.4 tokens, and on padded addition, whose digits are 9 and 18
// tokens apart at N = 8, no seed learned to reach that far (docs/lab.md, "Fair defaults").
inline constexpr double kFoxDecayMin = 2.0;
double fox_gate_bias(std::size_t head, std::size_t heads, double decay_max);

// Keeps the parameters in their domain after an optimiser step: a score bias's tensor at least
// its `least` (the reference's clamp before each forward pass).
void project_parameters(Parameters& params);

// Error (field "embedScale") when x = s·wte[token] would overflow float32 in the first
// LayerNorm, which sums E squares of it: a fresh run's scale, or a checkpoint's.
void require_embedding_scale_fits(double scale, const Parameters& params, std::size_t width);

// The score bias (n_layer, n_head, T, T) that a score-bias model adds to the scores of one
// sequence at `positions` (T of them, sorted): bias(i, j) for keys j ≤ i, 0 where the causal
// mask hides the key. What the lab's view draws. Error unless the method is a score bias.
TensorF model_score_bias(const ModelConfig& config, const Parameters& params,
                         const std::vector<std::int32_t>& positions);

// B sequences of T tokens, all (B, T) row-major. targets[b,t] is the next token (any value
// where loss_mask is 0); positions are what the position method sees (0..T−1, or a sorted
// random subset of [0, MAX)).
struct Batch {
  std::size_t batch = 0;
  std::size_t length = 0;
  std::vector<std::int32_t> tokens;
  std::vector<std::int32_t> targets;
  std::vector<std::int32_t> positions;
  std::vector<float> loss_mask;
};

class Model {
 public:
  // `threads` > 1 shards each training batch over that many threads natively (wasm runs one):
  // the same bits for a given thread count, within float rounding across counts.
  explicit Model(ModelConfig config, unsigned threads = 1);
  ~Model();
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;

  const ModelConfig& config() const { return config_; }

  // The loss Σ mask·CE / Σ mask; `grads` (the layout of params) is overwritten with its
  // gradient. Activations live in a workspace reused across calls of the same (B, T).
  double forward_backward(const Parameters& params, const Batch& batch, Parameters& grads);
  // The same loss without gradients.
  double loss(const Parameters& params, const Batch& batch);
  // Logits (B, T, V), float32, for evaluation by teacher forcing.
  TensorF logits(const Parameters& params, const Batch& batch);
  // Attention weights (n_layer, n_head, T, T) of sequence `b` of the batch.
  TensorF attention_maps(const Parameters& params, const Batch& batch, std::size_t b);
  // The same, and with `qk` the queries and keys each head scored with (n_layer, n_head, T, d),
  // after the rotation (a rotation method): the position lens's frequency bands.
  struct AttentionTrace {
    TensorF maps, q, k;
  };
  AttentionTrace attention_trace(const Parameters& params, const Batch& batch, std::size_t b,
                                 bool qk);
  // RoPE models: the scaling every later pass rotates with (RopeOptions' scaling, factor and
  // original length; the base stays the model's), with cos and sin times its attention factor
  // as Hugging Face's YaRN. Evaluation only: the text task's inference-time scalings.
  void set_rope_scaling(const RopeOptions& options);
  // Position surgery (models/position_surgery.hpp) inside every later logits(), loss() and
  // attention pass, checked against this model (Error naming the field); an empty one ends
  // it. Evaluation only: training refuses to run under surgery.
  void set_surgery(const PositionSurgery& surgery);
  // What this model offers surgery (its layers, heads, rotary pairs).
  SurgeryTarget surgery_target() const;
  // Floating-point operations of one forward + backward over (B, T) (matrix products and
  // attention, 2 per multiply-add; backward counted as twice the forward).
  double flops_per_step(std::size_t batch, std::size_t length) const;

 private:
  struct Workspace;
  double forward_backward_sharded(const Parameters& params, const Batch& batch, Parameters& grads,
                                  std::size_t shards);
  ModelConfig config_;
  unsigned threads_;
  std::unique_ptr<Workspace> workspace_;
};

}  // namespace poslab::train
