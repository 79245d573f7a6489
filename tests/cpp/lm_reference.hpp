// The naive double-precision pieces the language-model references are built from (GPT-2's in
// gpt2_test.cpp, GPT-NeoX's in gpt_neox_reference.hpp, Llama's in llama_reference.hpp):
// LayerNorm, RMSNorm, SwiGLU, rotate_half RoPE, a linear layer in either stored orientation,
// causal softmax attention of every head, row norms and the vocabulary head; and the measures the
// model tests compare the core with (positions 0..T−1, the float path's tolerance). Plain loops
// over doubles, written from the formulas (ARCHITECTURE.md §4) — never by calling the core.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "poslab/models/lm_dims.hpp"
#include "reference.hpp"

namespace lm_ref {

using Mat = std::vector<double>;  // row-major

// Positions 0, scale, 2·scale, ... for T tokens.
inline std::vector<double> iota_positions(std::size_t T, double scale = 1.0) {
  std::vector<double> p(T);
  for (std::size_t t = 0; t < T; ++t) p[t] = double(t) * scale;
  return p;
}

inline double max_abs(const poslab::TensorF& t) {
  double m = 0;
  for (float v : t.data) m = std::max(m, double(std::fabs(v)));
  return m;
}

// |got − want| <= tol·max|want| everywhere: the float path's acceptance measure.
inline ::testing::AssertionResult WithinOfLargest(const poslab::TensorF& got,
                                                  const poslab::TensorF& want, double tol) {
  if (got.shape != want.shape) return ::testing::AssertionFailure() << "shapes differ";
  const double bound = tol * max_abs(want);
  double worst = 0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double diff = std::fabs(double(got.data[i]) - want.data[i]);
    if (!(diff <= worst)) worst = diff, at = i;
  }
  if (worst <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "worst |diff| " << worst << " at " << at << " > " << bound
                                       << " (" << tol << " of the largest |value|)";
}

// The sizes every architecture's reference config starts with (V, E, N, H), from the core's.
struct Dims {
  std::size_t V, E, N, H;
};
inline Dims dims_of(const poslab::LmDims& d) {
  return {std::size_t(d.vocab_size), std::size_t(d.width), std::size_t(d.layers),
          std::size_t(d.heads)};
}

// What a reference records per layer, as the core's LmLayerTrace does.
struct Layer {
  ref::Tensor attention;  // (H, T, T)
  std::vector<double> ln1_mean, ln1_var, ln2_mean, ln2_var, resid_attn, resid_mlp;
};

// The core's trace of layer `i` against the reference's: the attention maps within
// `attention_tol`, the statistics within kAcceptance.
inline void expect_layer_close(const poslab::LmLayerTrace& got, const Layer& want,
                               const ref::Tol& attention_tol, std::size_t i) {
  EXPECT_ALLCLOSE(got.attention, want.attention, attention_tol) << "attention, layer " << i;
  EXPECT_ALLCLOSE(got.ln_1_mean, want.ln1_mean, ref::kAcceptance) << "layer " << i;
  EXPECT_ALLCLOSE(got.ln_1_variance, want.ln1_var, ref::kAcceptance) << "layer " << i;
  EXPECT_ALLCLOSE(got.ln_2_mean, want.ln2_mean, ref::kAcceptance) << "layer " << i;
  EXPECT_ALLCLOSE(got.ln_2_variance, want.ln2_var, ref::kAcceptance) << "layer " << i;
  EXPECT_ALLCLOSE(got.resid_attn_norm, want.resid_attn, ref::kAcceptance) << "layer " << i;
  EXPECT_ALLCLOSE(got.resid_mlp_norm, want.resid_mlp, ref::kAcceptance) << "layer " << i;
}

// LayerNorm over rows of width E, biased variance; records each row's mean and variance.
inline Mat layer_norm(const Mat& x, std::size_t rows, std::size_t E, const poslab::TensorF& g,
                      const poslab::TensorF& b, double eps, std::vector<double>* means = nullptr,
                      std::vector<double>* vars = nullptr) {
  Mat y(x.size());
  for (std::size_t r = 0; r < rows; ++r) {
    double mean = 0;
    for (std::size_t c = 0; c < E; ++c) mean += x[r * E + c];
    mean /= double(E);
    double var = 0;
    for (std::size_t c = 0; c < E; ++c) var += (x[r * E + c] - mean) * (x[r * E + c] - mean);
    var /= double(E);
    for (std::size_t c = 0; c < E; ++c) {
      y[r * E + c] = (x[r * E + c] - mean) / std::sqrt(var + eps) * g.data[c] + b.data[c];
    }
    if (means) means->push_back(mean);
    if (vars) vars->push_back(var);
  }
  return y;
}

// How a weight is stored: Hugging Face's Conv1D (in, out), y = x·W + b (GPT-2), or
// torch.nn.Linear (out, in), y = x·Wᵀ + b (GPT-NeoX).
enum class Stored { kInOut, kOutIn };

inline Mat linear(const Mat& x, std::size_t rows, const poslab::TensorF& w,
                  const poslab::TensorF& b, Stored stored) {
  const bool in_out = stored == Stored::kInOut;
  const std::size_t in = in_out ? w.shape[0] : w.shape[1], out = in_out ? w.shape[1] : w.shape[0];
  Mat y(rows * out);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t o = 0; o < out; ++o) {
      double s = b.data[o];
      for (std::size_t i = 0; i < in; ++i) {
        s += x[r * in + i] * double(w.data[in_out ? i * out + o : o * in + i]);
      }
      y[r * out + o] = s;
    }
  return y;
}

// RMSNorm over rows of width E: x/√(mean(x²) + eps)·(offset + g) (Llama's LlamaRMSNorm;
// Gemma3RMSNorm's offset 1).
inline Mat rms_norm(const Mat& x, std::size_t rows, std::size_t E, const poslab::TensorF& g,
                    double eps, double offset = 0.0) {
  Mat y(x.size());
  for (std::size_t r = 0; r < rows; ++r) {
    double mean_square = 0;
    for (std::size_t c = 0; c < E; ++c) mean_square += x[r * E + c] * x[r * E + c];
    mean_square /= double(E);
    for (std::size_t c = 0; c < E; ++c) {
      y[r * E + c] = x[r * E + c] / std::sqrt(mean_square + eps) * (offset + g.data[c]);
    }
  }
  return y;
}

// silu(gate)·up elementwise, silu(x) = x/(1 + e^(−x)): the Llama family's SwiGLU.
inline Mat swiglu(const Mat& gate, const Mat& up) {
  Mat y(gate.size());
  for (std::size_t i = 0; i < gate.size(); ++i) y[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
  return y;
}

// apply_rotary_pos_emb on the first R dims of one head's vector: x·cos + rotate_half(x)·sin,
// rotate_half(x) = (−x[R/2:], x[:R/2]), cos and sin carrying the attention factor.
inline void rotate_half(double* x, double position, const ref::Freqs& f) {
  const std::size_t half = f.rotary_dim / 2;
  for (std::size_t i = 0; i < half; ++i) {
    const double angle = position * f.inv_freq[i];
    const double c = std::cos(angle) * f.attention_factor, s = std::sin(angle) * f.attention_factor;
    const double a = x[i], b = x[i + half];
    x[i] = a * c - b * s;
    x[i + half] = b * c + a * s;
  }
}

// Position surgery as the references apply it (issue 49), written from its definitions, not
// from the core's position_surgery.hpp: a zeroed pair turns by angle 0 (cos = the attention
// factor, sin = 0); a NoPE layer rotates nothing; a NoPE query head reads its q and the k of
// its kv head as they were before the rotation (the other query heads of that kv head still
// read the rotated k); an ablated head's output is 0 before the output projection. A new base
// is the caller's: it hands the reference the frequencies of that base.
struct Surgery {
  std::vector<std::pair<std::size_t, std::size_t>> zero_pairs;  // pairs [first, last)
  std::vector<std::size_t> nope_layers;
  std::vector<std::pair<std::size_t, std::size_t>> nope_heads, ablated;  // (layer, query head)

  bool nope(std::size_t layer) const {
    return std::find(nope_layers.begin(), nope_layers.end(), layer) != nope_layers.end();
  }
  bool nope_head(std::size_t layer, std::size_t head) const {
    return nope(layer) || std::find(nope_heads.begin(), nope_heads.end(),
                                    std::make_pair(layer, head)) != nope_heads.end();
  }
  bool ablates(std::size_t layer, std::size_t head) const {
    return std::find(ablated.begin(), ablated.end(), std::make_pair(layer, head)) != ablated.end();
  }
  // `f` with the zeroed pairs' frequencies 0.
  ref::Freqs zeroed(ref::Freqs f) const {
    for (const auto& [first, last] : zero_pairs) {
      for (std::size_t i = first; i < last; ++i) f.inv_freq[i] = 0.0;
    }
    return f;
  }
  // The ablated heads' columns of merged (T, H·d) set to 0.
  void ablate(std::vector<double>& merged, std::size_t layer, std::size_t T, std::size_t H,
              std::size_t d) const {
    for (std::size_t h = 0; h < H; ++h) {
      if (!ablates(layer, h)) continue;
      for (std::size_t t = 0; t < T; ++t) std::fill_n(&merged[t * H * d + h * d], d, 0.0);
    }
  }
};

// ‖x[r]‖₂ of every row of width E.
inline std::vector<double> norms(const Mat& x, std::size_t rows, std::size_t E) {
  std::vector<double> out;
  for (std::size_t r = 0; r < rows; ++r) {
    double s = 0;
    for (std::size_t c = 0; c < E; ++c) s += x[r * E + c] * x[r * E + c];
    out.push_back(std::sqrt(s));
  }
  return out;
}

// Causal softmax(q·kᵀ/√d + bias) v of H heads over T positions: q(t, h), k(t, h), v(t, h)
// point at head h's d values at position t, bias(h, i, j) is added to each score. Fills
// `attention` (H, T, T) and returns the heads merged to (T, H·d), head h in columns h·d...
// window W > 0 also hides key j from query i unless j > i − W (masking_utils' sliding window).
// scale > 0 replaces 1/√d (Gemma 3's query_pre_attn_scalar^(−1/2)).
template <class Q, class K, class V, class Bias>
Mat causal_attention(std::size_t T, std::size_t H, std::size_t d, const Q& q, const K& k,
                     const V& v, const Bias& bias, ref::Tensor& attention, std::size_t window = 0,
                     double scale = 0.0) {
  const std::size_t E = H * d;
  attention = ref::Tensor({H, T, T});
  Mat merged(T * E, 0.0);
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t i = 0; i < T; ++i) {
      std::vector<double> s(i + 1);
      for (std::size_t j = 0; j <= i; ++j) {
        double dot = 0;
        for (std::size_t c = 0; c < d; ++c) dot += q(i, h)[c] * k(j, h)[c];
        s[j] = (scale > 0.0 ? dot * scale : dot / std::sqrt(double(d))) + bias(h, i, j);
        if (window > 0 && j + window <= i) s[j] = -std::numeric_limits<double>::infinity();
      }
      const double mx = *std::max_element(s.begin(), s.end());
      double total = 0;
      for (double& e : s) total += (e = std::exp(e - mx));
      for (std::size_t j = 0; j <= i; ++j) {
        const double p = s[j] / total;
        attention[(h * T + i) * T + j] = p;
        for (std::size_t c = 0; c < d; ++c) merged[i * E + h * d + c] += p * v(j, h)[c];
      }
    }
  return merged;
}

// x (T, E) · embeddingᵀ, embedding (V, E): the logits (T, V).
inline ref::Tensor vocabulary_logits(const Mat& x, std::size_t T, std::size_t E,
                                     const poslab::TensorF& embedding) {
  const std::size_t V = embedding.shape[0];
  ref::Tensor logits({T, V});
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t v = 0; v < V; ++v) {
      double s = 0;
      for (std::size_t c = 0; c < E; ++c) s += x[t * E + c] * double(embedding.data[v * E + c]);
      logits[t * V + v] = s;
    }
  return logits;
}

}  // namespace lm_ref
