// GPT-2 (Radford et al. 2019) exactly as the released model computes it, with a trace of the
// intermediates a viewer wants. Shapes: T tokens, E = n_embd, H = n_head, d = E/H,
// V = vocab_size, P = n_positions, N = n_layer.
//   x = wte[tok] + wpe[pos]                                  (T, E)
//   per block: h = x + c_proj(attn(ln_1(x)))                  causal, fused c_attn (E, 3E)
//              x = h + mlp.c_proj(gelu_tanh(mlp.c_fc(ln_2(h))))   c_fc (E, 4E), c_proj (4E, E)
//   logits = ln_f(x) · wteᵀ                                  (T, V), tied to wte
// Weights are stored as Hugging Face's Conv1D does: (in, out), y = x·W + b.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "poslab/base/names.hpp"
#include "poslab/base/precision.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/io/safetensors.hpp"
#include "poslab/models/lm_dims.hpp"
#include "poslab/models/lm_layer_trace.hpp"
#include "poslab/models/lm_weights.hpp"
#include "poslab/positions/position_methods.hpp"

namespace poslab {

struct Gpt2Weights;

struct Gpt2Config {
  using Weights = Gpt2Weights;  // for the shared templates of lm_weights.hpp
  // vocab_size, n_positions, n_embd, n_layer, n_head (kDimKeys): GPT-2 small's by default.
  LmDims dims{50257, 1024, 768, 12, 12};
  double layer_norm_epsilon = 1e-5;
  static constexpr LmDimKeys kDimKeys{"vocab_size", "n_positions", "n_embd", "n_layer", "n_head"};

  static Gpt2Config small();   // GPT-2 124M: 50257, 1024, 768, 12 layers, 12 heads
  static Gpt2Config medium();  // GPT-2 355M: 50257, 1024, 1024, 24 layers, 16 heads
  // "small" | "medium"
  static Gpt2Config preset(const std::string& name);
  // Hugging Face config.json text (keys vocab_size, n_positions, n_embd, n_layer, n_head,
  // layer_norm_epsilon; missing keys take GPT-2 small's values, as transformers does).
  // Settings this forward pass does not implement (another activation_function,
  // scale_attn_by_inverse_layer_idx, ...) are refused. `name` labels errors.
  static Gpt2Config from_json(const std::string& text, const std::string& name);
  // Read off a checkpoint's header when no config comes with it: V and E from wte, P from
  // wpe, N from the highest h.N, n_head = E/64 (every released GPT-2 has 64-wide heads;
  // refused, asking for config.json, when E is not a multiple of 64), eps 1e-5.
  static Gpt2Config from_header(const SafetensorsHeader& header, const std::string& name);
  // The config.json that from_json reads back to this config (model_type "gpt2").
  std::string to_json() const;

  // Throws unless every size is positive, H divides E, eps is finite and >= 0, and the
  // parameter count is within kMaxGpt2Parameters.
  void validate() const;
  // wte + wpe + N blocks + ln_f.
  std::uint64_t parameter_count() const;
};

// Parameters per component (weights + biases/gains), for the config table.
struct Gpt2ParameterCounts {
  std::uint64_t wte, wpe;                                                    // V·E, P·E
  std::uint64_t ln_1, attn_c_attn, attn_c_proj, ln_2, mlp_c_fc, mlp_c_proj;  // one block
  std::uint64_t block, blocks;  // their sum, and N of them
  std::uint64_t ln_f, total;
};
// Of a valid config (validate() first); total == parameter_count().
Gpt2ParameterCounts gpt2_parameter_counts(const Gpt2Config& config);

// The most parameters a model may have (8× the per-tensor element cap: 2^31 natively, enough
// for GPT-2 XL), checked before any weight is allocated.
inline constexpr std::uint64_t kMaxGpt2Parameters = std::uint64_t{8} * kMaxElements;

// Every weight keeps the dtype its checkpoint stored, BF16 widened to F32 (random init is F32).
// The checkpoint's Conv1D weights, (in, out), are held transposed, (out, in), as every other
// architecture's linear layers (lm_weights.hpp); lm_named_tensors gives them back as stored.
struct Gpt2Block {
  StoredTensor ln_1_weight, ln_1_bias;              // (E,)
  StoredTensor attn_c_attn_weight;                  // held (3E, E): q, k, v one after another
  StoredTensor attn_c_attn_bias;                    // (3E,)
  StoredTensor attn_c_proj_weight;                  // held (E, E), transposed
  StoredTensor attn_c_proj_bias;                    // (E,)
  StoredTensor ln_2_weight, ln_2_bias;              // (E,)
  StoredTensor mlp_c_fc_weight, mlp_c_fc_bias;      // held (4E, E), (4E,)
  StoredTensor mlp_c_proj_weight, mlp_c_proj_bias;  // held (E, 4E), (E,)
};

struct Gpt2Weights {
  Gpt2Config config;
  StoredTensor wte;  // (V, E)
  StoredTensor wpe;  // (P, E)
  std::vector<Gpt2Block> blocks;
  StoredTensor ln_f_weight, ln_f_bias;  // (E,)

  // Bytes the weights occupy in memory.
  std::uint64_t bytes() const;
};

// The architecture's description of its checkpoint for the shared loader (lm_weights.hpp):
// every name ("wte.weight", "h.0.ln_1.weight", ... in the order the released checkpoints list
// them, optionally prefixed "transformer."), shape and init. The attention-mask buffers
// (h.N.attn.bias, h.N.attn.masked_bias) and lm_head.weight (tied to wte) of some checkpoints
// are skipped; any other name is refused. The blocks sized to n_layer or required to have it.
// From it (lm_weights.hpp): lm_named_tensors, check_lm_weights, lm_random_weights (every
// matrix and embedding N(0, 0.02²) from poslab::Rng(seed), biases 0, LayerNorm gains 1).
LmTensorLayout lm_tensor_layout(Gpt2Weights& weights, LmLayers layers);

// Builds weights from a .safetensors checkpoint delivered as a stream of bytes, checked
// against `config` before the weights are allocated, each in its stored dtype (LmLoader).
using Gpt2Loader = LmLoader<Gpt2Weights>;

// The whole checkpoint from bytes in memory / from a file read in chunks, via Gpt2Loader;
// without a config, Gpt2Config::from_header reads one off the checkpoint.
Gpt2Weights gpt2_weights_from_bytes(const std::string& bytes,
                                    const std::optional<Gpt2Config>& config,
                                    const std::string& name);
Gpt2Weights load_gpt2_weights(const std::string& path,
                              const std::optional<Gpt2Config>& config = std::nullopt);

// Per layer: attention, ln_1's and ln_2's statistics, the residual norms (lm_layer_trace.hpp).
using Gpt2LayerTrace = LmLayerTrace;

struct Gpt2Result {
  TensorF logits;                      // (T, V)
  std::vector<Gpt2LayerTrace> layers;  // N entries when traced, else empty
  std::vector<std::int32_t> top_ids;   // (k,) most likely next tokens after the last position
  std::vector<float> top_probs;        // (k,) their softmax probabilities, descending
};

// How positions enter the model: the methods of the one table (position_methods.hpp) that can
// be swapped into GPT-2. GPT-2 was trained with learned absolute positions (wpe); the others
// replace wpe for exploration, and their results say so (gpt2_position_note):
//   learned     x = wte[tok] + wpe[t]: the released model
//   sinusoidal  x = wte[tok] + PE[t], interleaved sin/cos, base 10000, width E
//   rope        x = wte[tok]; q and k of every head rotated (neox pairs, base 10000)
//   alibi       x = wte[tok]; ALiBi's −m_h·(i − j) added to every head's scores
//   none        x = wte[tok]; position only through the causal mask (NoPE)
using Gpt2Position = PositionMethod;
inline constexpr auto kGpt2PositionNames = position_method_names<kSupportGpt2Swap>();
Gpt2Position parse_gpt2_position(const std::string& name);  // Error with field "position"
// One sentence for the user: "as trained" or why a swapped method is only exploration.
const char* gpt2_position_note(Gpt2Position position);

struct Gpt2Options {
  bool trace = true;
  long long top_k = 10;  // clipped to V
  Gpt2Position position = Gpt2Position::kLearned;
  // float32 SIMD products (the default), or the double-accumulating reference.
  Precision precision = Precision::kFloat;
  // Token t at position offset + t (offset + T <= n_positions): learned and sinusoidal
  // positions change the logits, RoPE, ALiBi and NoPE do not. The position lens's shift check.
  long long position_offset = 0;
  // Token t at positions[t] instead (T entries, any order, each below n_positions): the lens's
  // shuffled and constant positions. Not with a position_offset.
  std::vector<long long> positions;
  // With trace: each layer's trace handed here as it is made; the result's `layers` stay empty.
  LmLayerVisitor on_layer;
};

// tokens: 1 <= T <= P ids, each in [0, V).
Gpt2Result gpt2_forward(const Gpt2Weights& weights, const std::vector<long long>& tokens,
                        const Gpt2Options& options = {});

}  // namespace poslab
