// Float32 SIMD fast paths of the hot ops (Google Highway, static dispatch): the same source
// compiles to AVX2/SSE natively, to WebAssembly SIMD128 under `em++ -msimd128` and to
// scalar code without it. Each function has the signature, validation and error messages
// of the reference function of the same name (sinusoidal.hpp, rope.hpp, attention.hpp),
// which stays the oracle.
//
// Tolerance policy (checked by tests/cpp/fast_test.cpp and tests/wasm): every element of a
// fast result is within 1e-6 + 1e-6·|ref| of the double-accumulating reference, for the
// tested sizes (d up to 128, L up to a few hundred keys, entries of q, k, v of order 1) and
// positions up to 65 536. Angles p·θ are formed and reduced modulo 2π in double, so only the
// final sin/cos of a reduced angle (|a| <= π) or the rotation itself runs in float32.
// Attention's float32 scores carry an error δ ≈ 2^-24·scale·√(Σ_c (q_c·k_c)²) that softmax
// turns into a relative weight error of up to 2δ: negligible for scores of order 1, about
// 1e-6 for trained-model-sized scores (|s| ≈ 20), where the bound grows by 2δ·|w| per weight
// and 2δ·max|v| per output. Use poslab::attention when that matters.
#pragma once

#include "poslab/base/defaults.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/layers/attention.hpp"
#include "poslab/positions/rope.hpp"
#include "poslab/positions/sinusoidal.hpp"

namespace poslab::fast {

// PE (L, D), as poslab::sinusoidal_table.
TensorF sinusoidal_table(long long length, long long dim, double base = defaults::kBase,
                         SinusoidalLayout layout = SinusoidalLayout::kInterleaved,
                         long long offset = 0);

// x (L, D) or (H, L, D) rotated at positions offset..offset+L−1, as poslab::rope_apply.
// The rvalue overload rotates x's own storage (no copy): for callers that own a fresh input.
// A decaying rotation (scale_base > 0) is poslab::rope_apply's: it has no fast path.
TensorF rope_apply(const TensorF& x, const RopeOptions& options, long long offset = 0,
                   RotationSide side = RotationSide::kQuery);
TensorF rope_apply(TensorF&& x, const RopeOptions& options, long long offset = 0,
                   RotationSide side = RotationSide::kQuery);

// softmax(Q Kᵀ · scale + bias + mask) V in float32, as poslab::attention. Never allocates
// an (H, Lq, Lk) matrix unless options.return_weights asks for it.
AttentionResult attention(const TensorF& q, const TensorF& k, const TensorF& v,
                          const AttentionOptions& options = {});

// GELU in place over x[0, n), float32: the tanh approximation (GPT-2) and the exact erf form
// (GPT-NeoX; erf by Abramowitz & Stegun 7.1.26, |error| <= 1.5e-7). Within 1e-6 + 1e-6·|ref|
// of formulas::gelu_tanh / gelu_erf.
void gelu_tanh(float* x, std::size_t n);
void gelu_erf(float* x, std::size_t n);
// SiLU, x·σ(x) = x / (1 + e^(−x)), in place (the SwiGLU gate of the Llama family), with
// Highway's exp: within 1e-6 + 1e-6·|ref| of the double formula.
void silu(float* x, std::size_t n);

// The instruction set the fast paths were compiled for ("AVX2", "WASM", "EMU128", ...;
// "WASM+RELAXED" for the wasm build whose products use f32x4.relaxed_madd).
const char* simd_target();

}  // namespace poslab::fast
