// The building blocks the language models (GPT-2, GPT-NeoX, Llama) share, each in two precisions:
// Precision::kDouble is the readable reference (float32 storage, products accumulated in
// double through Eigen), Precision::kFloat the fast path (poslab::fast::gemm, fast::attention,
// vectorised activations). The models are written once over these calls.
#pragma once

#include <initializer_list>

#include "poslab/base/precision.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/io/stored_tensor.hpp"
#include "poslab/layers/attention.hpp"

namespace poslab::model {

// y (T, out) = x (T, in) · Wᵀ (+ b): W (out, in) as torch.nn.Linear stores it (and as the
// loader holds GPT-2's Conv1D weights, lm_weights.hpp), or a tied (V, E) embedding; b (out,)
// or null. Half-precision weights are widened a bounded slice of rows at a time (never a
// float32 copy of the whole matrix).
TensorF linear(const TensorF& x, const StoredTensor& w, const StoredTensor* b, Precision precision,
               const char* what);

// In place, elementwise: GPT-2's tanh approximation / GPT-NeoX's exact erf GELU.
void gelu_tanh(TensorF& x, Precision precision);
void gelu_erf(TensorF& x, Precision precision);

// gate = silu(gate)·up, in place, silu(x) = x/(1 + e^(−x)): the SwiGLU of the Llama family's
// MLP (float: in float32; double: each product in double, stored as float32).
void swiglu(TensorF& gate, const TensorF& up, Precision precision);
// gate = gelu_tanh(gate)·up, in place: Gemma's gated GELU (gelu_pytorch_tanh).
void geglu_tanh(TensorF& gate, const TensorF& up, Precision precision);

// softmax(QKᵀ·scale + bias + mask) V: poslab::attention or poslab::fast::attention.
AttentionResult attention(const TensorF& q, const TensorF& k, const TensorF& v,
                          const AttentionOptions& options, Precision precision);

// Σ of same-shaped tensors, elementwise in double (the residual additions).
TensorF sum(std::initializer_list<const TensorF*> terms);

// ‖x[t]‖₂ per row of x (T, E) → (T,): the residual stream's norms the traces report.
TensorF row_norms(const TensorF& x);

}  // namespace poslab::model
