// A naive double-precision GPT-NeoX forward pass for the tests, written from Hugging Face's
// modeling_gpt_neox.py (GPTNeoXAttention, GPTNeoXMLP, GPTNeoXLayer, GPTNeoXForCausalLM) with
// plain loops over a name → tensor map — never by calling the core's model code. The rotary
// frequencies come in from the caller (ref::rope_freqs, itself written from Hugging Face's
// rope_type functions), and so do the positions, so a test can rotate at any real position.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "lm_reference.hpp"
#include "reference.hpp"

namespace neox_ref {

struct Config : lm_ref::Dims {
  std::size_t I;
  double rotary_pct;
  double eps;
  bool parallel;
};

using lm_ref::Layer;

struct Result {
  ref::Tensor logits;  // (T, V)
  std::vector<Layer> layers;
};

using Weights = std::map<std::string, poslab::TensorF>;
using lm_ref::Mat;

inline const poslab::TensorF& at(const Weights& w, const std::string& name) { return w.at(name); }

// torch.nn.Linear: y = x · Wᵀ + b, W (out, in).
inline Mat linear(const Mat& x, std::size_t rows, const poslab::TensorF& w,
                  const poslab::TensorF& b) {
  return lm_ref::linear(x, rows, w, b, lm_ref::Stored::kOutIn);
}

using lm_ref::rotate_half;

// tokens (T,), positions (T,): logits (T, V) and each layer's attention and statistics, under
// `surgery` (lm_reference.hpp; a new base comes in as `freqs`).
inline Result forward(const Weights& w, const Config& c, const std::vector<long long>& tokens,
                      const ref::Freqs& freqs, const std::vector<double>& positions,
                      const lm_ref::Surgery& surgery = {}) {
  const std::size_t T = tokens.size(), E = c.E, H = c.H, d = E / H;
  Result result;
  Mat x(T * E);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t e = 0; e < E; ++e) {
      x[t * E + e] = at(w, "gpt_neox.embed_in.weight").data[std::size_t(tokens[t]) * E + e];
    }
  for (std::size_t n = 0; n < c.N; ++n) {
    const std::string p = "gpt_neox.layers." + std::to_string(n) + ".";
    Layer L;
    const Mat a =
        lm_ref::layer_norm(x, T, E, at(w, p + "input_layernorm.weight"),
                           at(w, p + "input_layernorm.bias"), c.eps, &L.ln1_mean, &L.ln1_var);
    Mat qkv = linear(a, T, at(w, p + "attention.query_key_value.weight"),
                     at(w, p + "attention.query_key_value.bias"));
    // (T, 3E) viewed as (T, H, 3d): head h's q at h·3d, k at h·3d + d, v at h·3d + 2d.
    const auto q = [&](std::size_t t, std::size_t h) { return &qkv[t * 3 * E + h * 3 * d]; };
    const ref::Freqs turned = surgery.zeroed(freqs);
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t h = 0; h < H; ++h) {
        if (surgery.nope_head(n, h)) continue;  // a NoPE layer or head: q and k as projected
        rotate_half(q(t, h), positions[t], turned);
        rotate_half(q(t, h) + d, positions[t], turned);
      }
    const auto part = [&](std::size_t k) {
      return [&q, k, d](std::size_t t, std::size_t h) { return q(t, h) + k * d; };
    };
    const auto no_bias = [](std::size_t, std::size_t, std::size_t) { return 0.0; };
    Mat merged =  // scale 1/√d: norm_factor = √head_size
        lm_ref::causal_attention(T, H, d, part(0), part(1), part(2), no_bias, L.attention);
    surgery.ablate(merged, n, T, H, d);
    const Mat attn =
        linear(merged, T, at(w, p + "attention.dense.weight"), at(w, p + "attention.dense.bias"));
    const auto mlp = [&](const Mat& m) {
      Mat hidden =
          linear(m, T, at(w, p + "mlp.dense_h_to_4h.weight"), at(w, p + "mlp.dense_h_to_4h.bias"));
      for (double& v : hidden) v = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
      return linear(hidden, T, at(w, p + "mlp.dense_4h_to_h.weight"),
                    at(w, p + "mlp.dense_4h_to_h.bias"));
    };
    Mat after_attention(T * E), next(T * E);
    for (std::size_t i = 0; i < T * E; ++i) after_attention[i] = x[i] + attn[i];
    // Parallel: mlp reads ln2(x); sequential: ln2(x + attn).
    const Mat& mlp_input = c.parallel ? x : after_attention;
    const Mat m = lm_ref::layer_norm(mlp_input, T, E, at(w, p + "post_attention_layernorm.weight"),
                                     at(w, p + "post_attention_layernorm.bias"), c.eps, &L.ln2_mean,
                                     &L.ln2_var);
    const Mat out = mlp(m);
    for (std::size_t i = 0; i < T * E; ++i) next[i] = after_attention[i] + out[i];
    L.resid_attn = lm_ref::norms(after_attention, T, E);
    L.resid_mlp = lm_ref::norms(next, T, E);
    x = next;
    result.layers.push_back(std::move(L));
  }
  const Mat f = lm_ref::layer_norm(x, T, E, at(w, "gpt_neox.final_layer_norm.weight"),
                                   at(w, "gpt_neox.final_layer_norm.bias"), c.eps);
  result.logits = lm_ref::vocabulary_logits(f, T, E, at(w, "embed_out.weight"));
  return result;
}

// −log softmax(logits[t])[tokens[t+1]], t in [0, T−1).
inline std::vector<double> losses(const ref::Tensor& logits, const std::vector<long long>& tokens) {
  const std::size_t V = logits.shape[1];
  std::vector<double> out;
  for (std::size_t t = 0; t + 1 < tokens.size(); ++t) {
    const double* row = logits.data.data() + t * V;
    const double mx = *std::max_element(row, row + V);
    double s = 0;
    for (std::size_t v = 0; v < V; ++v) s += std::exp(row[v] - mx);
    out.push_back(mx + std::log(s) - row[tokens[t + 1]]);
  }
  return out;
}

}  // namespace neox_ref
