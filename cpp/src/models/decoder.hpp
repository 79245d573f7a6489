// The decoder-only skeleton every language model (GPT-2, GPT-NeoX, Llama) runs, written once: the
// tokens' check, the fused qkv projection's split into heads, causal self-attention with the
// heads merged back, and the pre-norm layer with its residual and trace. An architecture
// brings its few distinct ops (its norms, how q and k are rotated or biased, its MLP) as
// callables; the products are model_ops.hpp's, in either precision.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/model_ops.hpp"
#include "poslab/base/precision.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/io/stored_tensor.hpp"
#include "poslab/models/lm.hpp"
#include "poslab/models/lm_dims.hpp"
#include "poslab/models/lm_layer_trace.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab::model {

// tokens: 1 <= T <= max_tokens ids, each in [0, vocab); Errors with field "tokens". `model`
// ("GPT-2") and `limit` ("n_positions 1024") word the messages.
void check_tokens(const std::vector<long long>& tokens, long long vocab, std::size_t max_tokens,
                  const std::string& model, const std::string& limit);

// How a fused qkv (T, 3E) holds the heads: kSideBySide is GPT-2's c_attn ([q | k | v], each E
// wide, head h at columns h·d..), kPerHead GPT-NeoX's query_key_value (per head [q | k | v],
// each d wide).
enum class QkvLayout { kSideBySide, kPerHead };

struct Heads {
  TensorF q, k, v;  // (H, T, d) each
};
Heads split_heads(const TensorF& qkv, std::size_t H, QkvLayout layout);

// One projection's output (T, n·d) as n heads (n, T, d), head h from columns h·d.. (the
// Llama family's separate q, k and v projections).
TensorF heads_of(const TensorF& x, std::size_t n, const char* what);
// (K, T, d) → (K·g, T, d), kv head j serving query heads j·g .. j·g + g − 1: transformers'
// repeat_kv for grouped-query attention.
TensorF repeat_heads(const TensorF& x, std::size_t g);

// q and k rotated in place by RoPE: the reference in kDouble, fast::rope_apply in kFloat.
// rope_apply at offset 0 over T positions passes total_length T to rope_frequencies, so a
// dynamic scaling sees the whole sequence, as Hugging Face's does.
// `offset`: token t at position offset + t.
void rotate(Heads& heads, const RopeOptions& rope, Precision precision, long long offset = 0);
// The same with token t at positions[t] (rope_apply's positions form, angles in double, for
// either precision: the rotation is a small part of a layer's work).
void rotate(Heads& heads, const RopeOptions& rope, const std::vector<long long>& positions);

// A RoPE model's attention after its projections: q and k rotated (rotate, at the options'
// offset or positions), k and v repeated to the query heads (repeat_heads, g = H / K),
// causal_attention with its weights in the trace, and, when the options ask, the trace's
// pair_energy from the rotated q and k. The options' surgery of layer `layer`: no rotation
// in a NoPE layer; a NoPE head's q and its copy of the shared k left unrotated; an ablated
// head's output columns zeroed.
// `scale`: the scores' scale, 1/√d when 0. `nope`: the model's own NoPE layer (SmolLM3's
// no_rope_layers), which skips the rotation as the surgery's NoPE layer does.
TensorF rope_attention(Heads heads, const RopeOptions& rope, const RopeLmOptions& options,
                       std::size_t layer, LmLayerTrace* trace, long long window = 0,
                       double scale = 0.0, bool nope = false);

// Causal attention of every head (scale 1/√d; `bias` (H, T, T) or null added to the scores),
// heads merged back to (T, E), head h in columns h·d..; `weights` (H, T, T) when not null.
// window W > 0: a sliding window as well, key j visible to query i when i − W < j <= i
// (MaskKind::kSlidingWindow, transformers' sliding_window_overlay).
TensorF causal_attention(const Heads& heads, const TensorF* bias, Precision precision,
                         TensorF* weights, long long window = 0, double scale = 0.0);

// (x − mean)/√(var + eps)·γ + β with the stored gain and bias.
TensorF layer_norm(const TensorF& x, const StoredTensor& weight, const StoredTensor& bias,
                   double eps);
// The same as a layer's norm op (the tensors must outlive it).
std::function<TensorF(const TensorF&)> layer_norm_op(const StoredTensor& weight,
                                                     const StoredTensor& bias, double eps);

// x/√(mean(x²) + eps)·γ over each row, γ the stored gain plus `gain_offset` (RMSNorm; Gemma's
// (1 + w) with offset 1), and as a layer's op.
TensorF rms_norm(const TensorF& x, const StoredTensor& weight, double eps,
                 double gain_offset = 0.0);
std::function<TensorF(const TensorF&)> rms_norm_op(const StoredTensor& weight, double eps,
                                                   double gain_offset = 0.0);

// Where the MLP reads from: kSequential h = x + attn, x' = h + mlp(norm_2(h)) (GPT-2,
// GPT-NeoX's use_parallel_residual false); kParallel x' = x + attn + mlp(norm_2(x)).
enum class Residual { kSequential, kParallel };

// One pre-norm decoder layer: attention on norm_1(x) (handed the layer's trace to fill with its
// (H, T, T) weights when traced, else null), the MLP on norm_2 of its input as `residual` says.
struct DecoderLayer {
  std::function<TensorF(const TensorF&)> norm_1, norm_2;
  std::function<TensorF(const TensorF&, LmLayerTrace* trace)> attention;
  std::function<TensorF(const TensorF&)> mlp;
  Residual residual = Residual::kSequential;
};

// Error (field "weights") at the first value of `x` (T, ...) that is not finite, naming `what`
// ("layer 3's attention output") and where in it: an overflow inside the forward pass is named
// where it first appears, not reported as NaN logits at the end.
void require_finite_activation(const TensorF& x, const std::string& what);

// x after the layer (layer `index`, for the messages). When `trace` is not null it gets the
// attention weights, each norm's input statistics and the residual norms (lm_layer_trace.hpp).
TensorF decoder_layer(const TensorF& x, const DecoderLayer& layer, LmLayerTrace* trace,
                      std::size_t index = 0);

// x (T, E) through layers first .. n − 1 (x enters layer `first`), layer i as layer_of(i)
// describes it; one trace per layer appended to `traces` when it is not null, or handed to
// `on_layer` when that is set; each layer's input, and the last one's output, appended to
// `inputs` when it is not null.
TensorF decoder_layers(TensorF x, std::size_t n,
                       const std::function<DecoderLayer(std::size_t)>& layer_of,
                       std::vector<LmLayerTrace>* traces, const LmLayerVisitor& on_layer = {},
                       std::size_t first = 0, std::vector<TensorF>* inputs = nullptr);

// What a RoPE model (GPT-NeoX, the Llama family) brings to rope_lm_forward.
struct RopeLmParts {
  const char* model;                               // "GPT-NeoX": words the messages
  const StoredTensor* embedding;                   // (V, E)
  double embedding_scale;                          // x = embedding[token]·scale (Gemma: √E)
  const StoredTensor* head;                        // (V, E): the vocabulary matrix
  std::size_t layers;                              // N
  std::function<void(std::size_t T)> check_sizes;  // its tensors against the element cap
  // Layer i, rotating q and k by `rope` (the config's, or the options' to explore) at the
  // options' positions; its attention also fills the trace's pair_energy when the options ask
  // (rope_attention does both).
  std::function<DecoderLayer(std::size_t i, const RopeOptions& rope, const RopeLmOptions& options)>
      layer;
  std::function<TensorF(const TensorF&)> final_norm;
  bool local_layers = false;  // some layers turn at a base of their own (Gemma 3's sliding ones)
};

// A RoPE model's forward pass, written once. Before any work it refuses a bad request: the
// tokens (check_tokens, up to kMaxRopeLmTokens), top_k and the outputs asked for, the rotation
// (options.rope, else `trained`) at head_dim, the surgery, the loss's tokens, then
// parts.check_sizes(T). Then x[t] = embedding[token t]·embedding_scale (or the reused
// residual of the first changed layer), the layers, the final norm and the vocabulary head, as
// `options` asks (logits, losses, top_k, trace).
RopeLmResult rope_lm_forward(const std::vector<long long>& tokens, const RopeLmOptions& options,
                             const RopeOptions& trained, const LmDims& dims, long long head_dim,
                             const RopeLmParts& parts);

}  // namespace poslab::model
