// A naive double-precision Llama-family forward pass for the tests, written from Hugging Face's
// modeling_llama.py (LlamaRMSNorm, LlamaAttention with repeat_kv, LlamaMLP, LlamaDecoderLayer,
// LlamaForCausalLM), modeling_qwen3.py (q_norm, k_norm before RoPE), modeling_gemma3.py
// (Gemma3RMSNorm's (1 + w), the sandwich norms, the √E embedding scale, query_pre_attn_scalar,
// the gated GELU-tanh MLP, the sliding layers' own rotation), modeling_smollm3.py
// (SmolLM3Attention's `if self.use_rope:` around apply_rotary_pos_emb, use_rope =
// config.no_rope_layers[layer_idx]) and masking_utils.py's sliding window, with plain loops over a
// name → tensor map — never by calling the core's model code. The rotary frequencies come in from
// the caller (ref::rope_freqs, written from Hugging Face's rope_type functions), and so do the
// positions; position surgery (lm_reference.hpp's Surgery) is applied inside the pass.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "lm_reference.hpp"
#include "reference.hpp"

namespace llama_ref {

struct Config : lm_ref::Dims {
  std::size_t K, d, I;  // K kv heads, d the head width
  double eps;
  bool tied;
  std::vector<std::size_t> windows;  // per layer, 0: full causal; empty: none slide
  // gemma3_text: (1 + w) gains, a norm after attention and around the MLP, embeddings times √E,
  // scores times query_pre_attn_scalar^(−1/2), GELU-tanh in place of SiLU.
  bool gemma = false;
  double query_pre_attn_scalar = 0.0;
  // smollm3: config.no_rope_layers as transformers holds it, 1 for a layer that rotates q and k,
  // 0 for one that does not (NoPE); empty: every layer rotates.
  std::vector<int> no_rope_layers;
  bool use_rope(std::size_t layer) const {
    return layer >= no_rope_layers.size() || no_rope_layers[layer] != 0;
  }
};

struct Result {
  ref::Tensor logits;  // (T, V)
  std::vector<lm_ref::Layer> layers;
};

using Weights = std::map<std::string, poslab::TensorF>;
using lm_ref::Mat;

// torch.nn.Linear with its bias when the checkpoint has one (attention_bias).
inline Mat linear(const Mat& x, std::size_t rows, const Weights& w, const std::string& name) {
  const poslab::TensorF& weight = w.at(name + ".weight");
  const auto bias = w.find(name + ".bias");
  const poslab::TensorF zero({weight.shape[0]}, "zero bias");
  return lm_ref::linear(x, rows, weight, bias == w.end() ? zero : bias->second,
                        lm_ref::Stored::kOutIn);
}

// Mean and biased variance of each row, as the core's trace reports a norm's input.
inline void row_stats(const Mat& x, std::size_t rows, std::size_t E, std::vector<double>& means,
                      std::vector<double>& vars) {
  for (std::size_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (std::size_t c = 0; c < E; ++c) mean += x[r * E + c];
    mean /= double(E);
    for (std::size_t c = 0; c < E; ++c) var += (x[r * E + c] - mean) * (x[r * E + c] - mean);
    means.push_back(mean);
    vars.push_back(var / double(E));
  }
}

// gelu_pytorch_tanh(gate)·up elementwise: Gemma 3's gated MLP.
inline Mat geglu_tanh(const Mat& gate, const Mat& up) {
  Mat y(gate.size());
  const double c = std::sqrt(2.0 / 3.14159265358979323846);
  for (std::size_t i = 0; i < gate.size(); ++i) {
    const double x = gate[i];
    y[i] = 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x))) * up[i];
  }
  return y;
}

// tokens (T,), positions (T,): logits (T, V) and each layer's attention and statistics, under
// `surgery` (lm_reference.hpp; a new base comes in as the frequencies). `local_freqs`: the
// sliding layers' rotation (Gemma 3's rope_local_base_freq, unscaled); null: every layer turns
// by `freqs`.
inline Result forward(const Weights& w, const Config& c, const std::vector<long long>& tokens,
                      const ref::Freqs& freqs, const std::vector<double>& positions,
                      const lm_ref::Surgery& surgery = {},
                      const ref::Freqs* local_freqs = nullptr) {
  const std::size_t T = tokens.size(), E = c.E, H = c.H, K = c.K, d = c.d, g = H / K;
  // Gemma3RMSNorm: x/√(mean(x²) + eps)·(1 + w).
  const auto norm = [&](const Mat& x, std::size_t rows, std::size_t width,
                        const std::string& name) {
    return lm_ref::rms_norm(x, rows, width, w.at(name), c.eps, c.gemma ? 1.0 : 0.0);
  };
  Result result;
  Mat x(T * E);
  const poslab::TensorF& embed = w.at("model.embed_tokens.weight");
  const double embed_scale = c.gemma ? std::sqrt(double(E)) : 1.0;
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t e = 0; e < E; ++e) {
      x[t * E + e] = embed.data[std::size_t(tokens[t]) * E + e] * embed_scale;
    }
  for (std::size_t n = 0; n < c.N; ++n) {
    const std::string p = "model.layers." + std::to_string(n) + ".";
    lm_ref::Layer L;
    row_stats(x, T, E, L.ln1_mean, L.ln1_var);
    const Mat a = norm(x, T, E, p + "input_layernorm.weight");
    Mat q = linear(a, T, w, p + "self_attn.q_proj");  // (T, H·d)
    Mat k = linear(a, T, w, p + "self_attn.k_proj");  // (T, K·d)
    const Mat v = linear(a, T, w, p + "self_attn.v_proj");
    // qwen3, gemma3: RMSNorm over each head's d values (q_norm, k_norm) when the checkpoint has
    // them.
    if (w.count(p + "self_attn.q_norm.weight")) {
      q = norm(q, T * H, d, p + "self_attn.q_norm.weight");
      k = norm(k, T * K, d, p + "self_attn.k_norm.weight");
    }
    const Mat q_plain = q, k_plain = k;  // what a NoPE head reads
    const std::size_t window = n < c.windows.size() ? c.windows[n] : 0;
    const ref::Freqs turned = surgery.zeroed(local_freqs && window > 0 ? *local_freqs : freqs);
    // SmolLM3Attention: `if self.use_rope:` q and k rotated, else both left as projected.
    const bool rotates = c.use_rope(n) && !surgery.nope(n);
    for (std::size_t t = 0; t < T && rotates; ++t) {
      for (std::size_t h = 0; h < H; ++h)
        lm_ref::rotate_half(&q[(t * H + h) * d], positions[t], turned);
      for (std::size_t h = 0; h < K; ++h)
        lm_ref::rotate_half(&k[(t * K + h) * d], positions[t], turned);
    }
    // repeat_kv: query head h reads kv head h / g; a NoPE query head reads the unrotated q and
    // its own copy of the unrotated k.
    const auto qh = [&](std::size_t t, std::size_t h) {
      return &(surgery.nope_head(n, h) ? q_plain : q)[(t * H + h) * d];
    };
    const auto kh = [&](std::size_t t, std::size_t h) {
      return &(surgery.nope_head(n, h) ? k_plain : k)[(t * K + h / g) * d];
    };
    const auto vh = [&](std::size_t t, std::size_t h) { return &v[(t * K + h / g) * d]; };
    const auto no_bias = [](std::size_t, std::size_t, std::size_t) { return 0.0; };
    const double scale = c.gemma ? 1.0 / std::sqrt(c.query_pre_attn_scalar) : 0.0;
    Mat merged = lm_ref::causal_attention(T, H, d, qh, kh, vh, no_bias, L.attention, window, scale);
    surgery.ablate(merged, n, T, H, d);
    Mat attn = linear(merged, T, w, p + "self_attn.o_proj");
    if (c.gemma) attn = norm(attn, T, E, p + "post_attention_layernorm.weight");
    Mat h(T * E), next(T * E);
    for (std::size_t i = 0; i < T * E; ++i) h[i] = x[i] + attn[i];
    row_stats(h, T, E, L.ln2_mean, L.ln2_var);
    const Mat m = norm(
        h, T, E,
        p + (c.gemma ? "pre_feedforward_layernorm.weight" : "post_attention_layernorm.weight"));
    const Mat gate = linear(m, T, w, p + "mlp.gate_proj"), up = linear(m, T, w, p + "mlp.up_proj");
    const Mat hidden = c.gemma ? geglu_tanh(gate, up) : lm_ref::swiglu(gate, up);
    Mat out = linear(hidden, T, w, p + "mlp.down_proj");
    if (c.gemma) out = norm(out, T, E, p + "post_feedforward_layernorm.weight");
    for (std::size_t i = 0; i < T * E; ++i) next[i] = h[i] + out[i];
    L.resid_attn = lm_ref::norms(h, T, E);
    L.resid_mlp = lm_ref::norms(next, T, E);
    x = next;
    result.layers.push_back(std::move(L));
  }
  const Mat f = norm(x, T, E, "model.norm.weight");
  result.logits = lm_ref::vocabulary_logits(
      f, T, E, w.at(c.tied ? "model.embed_tokens.weight" : "lm_head.weight"));
  return result;
}

}  // namespace llama_ref
