// A naive double-precision Llama-family forward pass for the tests, written from Hugging Face's
// modeling_llama.py (LlamaRMSNorm, LlamaAttention with repeat_kv, LlamaMLP, LlamaDecoderLayer,
// LlamaForCausalLM), modeling_qwen3.py (q_norm, k_norm before RoPE) and masking_utils.py's
// sliding window, with plain loops over a name → tensor map — never by calling the core's
// model code. The rotary frequencies come in from the caller (ref::rope_freqs, written from
// Hugging Face's rope_type functions), and so do the positions.
#pragma once

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

// tokens (T,), positions (T,): logits (T, V) and each layer's attention and statistics.
inline Result forward(const Weights& w, const Config& c, const std::vector<long long>& tokens,
                      const ref::Freqs& freqs, const std::vector<double>& positions) {
  const std::size_t T = tokens.size(), E = c.E, H = c.H, K = c.K, d = c.d, g = H / K;
  Result result;
  Mat x(T * E);
  const poslab::TensorF& embed = w.at("model.embed_tokens.weight");
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t e = 0; e < E; ++e) x[t * E + e] = embed.data[std::size_t(tokens[t]) * E + e];
  for (std::size_t n = 0; n < c.N; ++n) {
    const std::string p = "model.layers." + std::to_string(n) + ".";
    lm_ref::Layer L;
    row_stats(x, T, E, L.ln1_mean, L.ln1_var);
    const Mat a = lm_ref::rms_norm(x, T, E, w.at(p + "input_layernorm.weight"), c.eps);
    Mat q = linear(a, T, w, p + "self_attn.q_proj");  // (T, H·d)
    Mat k = linear(a, T, w, p + "self_attn.k_proj");  // (T, K·d)
    const Mat v = linear(a, T, w, p + "self_attn.v_proj");
    // qwen3: RMSNorm over each head's d values (q_norm, k_norm) when the checkpoint has them.
    if (w.count(p + "self_attn.q_norm.weight")) {
      q = lm_ref::rms_norm(q, T * H, d, w.at(p + "self_attn.q_norm.weight"), c.eps);
      k = lm_ref::rms_norm(k, T * K, d, w.at(p + "self_attn.k_norm.weight"), c.eps);
    }
    for (std::size_t t = 0; t < T; ++t) {
      for (std::size_t h = 0; h < H; ++h)
        lm_ref::rotate_half(&q[(t * H + h) * d], positions[t], freqs);
      for (std::size_t h = 0; h < K; ++h)
        lm_ref::rotate_half(&k[(t * K + h) * d], positions[t], freqs);
    }
    // repeat_kv: query head h reads kv head h / g.
    const auto qh = [&](std::size_t t, std::size_t h) { return &q[(t * H + h) * d]; };
    const auto kh = [&](std::size_t t, std::size_t h) { return &k[(t * K + h / g) * d]; };
    const auto vh = [&](std::size_t t, std::size_t h) { return &v[(t * K + h / g) * d]; };
    const auto no_bias = [](std::size_t, std::size_t, std::size_t) { return 0.0; };
    const std::size_t window = n < c.windows.size() ? c.windows[n] : 0;
    const Mat merged = lm_ref::causal_attention(T, H, d, qh, kh, vh, no_bias, L.attention, window);
    const Mat attn = linear(merged, T, w, p + "self_attn.o_proj");
    Mat h(T * E), next(T * E);
    for (std::size_t i = 0; i < T * E; ++i) h[i] = x[i] + attn[i];
    row_stats(h, T, E, L.ln2_mean, L.ln2_var);
    const Mat m = lm_ref::rms_norm(h, T, E, w.at(p + "post_attention_layernorm.weight"), c.eps);
    const Mat hidden =
        lm_ref::swiglu(linear(m, T, w, p + "mlp.gate_proj"), linear(m, T, w, p + "mlp.up_proj"));
    const Mat out = linear(hidden, T, w, p + "mlp.down_proj");
    for (std::size_t i = 0; i < T * E; ++i) next[i] = h[i] + out[i];
    L.resid_attn = lm_ref::norms(h, T, E);
    L.resid_mlp = lm_ref::norms(next, T, E);
    x = next;
    result.layers.push_back(std::move(L));
  }
  const Mat f = lm_ref::rms_norm(x, T, E, w.at("model.norm.weight"), c.eps);
  result.logits = lm_ref::vocabulary_logits(
      f, T, E, w.at(c.tied ? "model.embed_tokens.weight" : "lm_head.weight"));
  return result;
}

}  // namespace llama_ref
