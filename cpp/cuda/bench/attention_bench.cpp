// Attention forward: naive (cuBLAS + masked softmax) and fused flash-style, B·L = 16 384,
// d_model 2048 (H = 32 at d = 64, H = 16 at d = 128), causal and not; then the masks and
// position methods at B = 4, H = 16, d = 128, L = 4096 and 8192: ALiBi and T5 in the fused
// kernel against the naive path with the bias, RoPE on load against PosLab's RoPE kernel then
// the fused kernel. Big shapes are checked on two heads and 128 query rows (the first and
// last 64) against poslab::attention (RoPE: poslab::rope_apply first), with the mask folded
// into a −∞ bias so the core can be given any block of rows.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "inputs.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/cuda/attention.hpp"
#include "poslab/cuda/compare.hpp"
#include "poslab/cuda/rope.hpp"
#include "poslab/cuda/t5.hpp"
#include "poslab/layers/attention.hpp"
#include "poslab/positions/relative.hpp"
#include "poslab/positions/rope.hpp"
#include "poslab/positions/score_bias_tensor.hpp"
#include "suite.hpp"

namespace poslab::cuda::bench {
namespace {

struct Case {
  AttentionDims dims;
  DType dtype = DType::kF16;
  Mask mask;
  // A score bias (its term in the kernels; T5's bidirectional buckets a bias tensor for naive).
  PositionMethod bias = PositionMethod::kNone;
  bool padding = false;             // hide the last eighth of the keys of every batch
  std::optional<RopeOptions> rope;  // fused: on load; naive: never (the RoPE kernel runs first)
  bool rope_separate = false;       // fused after PosLab's RoPE kernel on q and k, timed together
  std::string label;                // params.mask in the JSON
};

// The case's score bias at the table's defaults, seed 0 (T5 bidirectional, an encoder's).
ScoreBias score_bias_of(const Case& c) {
  ScoreBias bias = score_bias_defaults(c.bias);
  bias.bidirectional = c.bias == PositionMethod::kT5;
  return bias;
}

T5BucketOptions t5_options(const ScoreBias& bias) {
  return {bias.bidirectional, static_cast<long long>(bias.options[0]),
          static_cast<long long>(bias.options[1])};
}

// x rows [r0, r1) of one (L, d) head rotated at positions r0.., rounded to the storage type.
std::vector<float> rotated(const float* x, long long r0, long long r1, long long d,
                           const RopeOptions& options, DType dtype) {
  const TensorF rows({std::size_t(r1 - r0), std::size_t(d)},
                     std::vector<float>(x + r0 * d, x + r1 * d));
  const std::vector<float> out = rope_apply(rows, options, r0).data;
  return from_half_bits(to_half_bits(out, dtype), dtype);
}

struct Inputs {
  std::vector<float> q, k, v;  // rounded to the storage type, (B, H, L, d)
  DeviceBuffer dq, dk, dv, dout;
  std::vector<std::uint8_t> padding;  // (B, Lk) or empty
  DeviceBuffer dpadding;
  DeviceBuffer dparameters, dbias;  // a score bias's parameters; T5's (H, Lq, Lk) bias (naive)
  DeviceBuffer dq_rot, dk_rot;      // RoPE in a separate kernel: rotated q and k
  std::optional<DeviceRopeFrequencies> freq;
};

Inputs make_inputs(const Case& c) {
  const AttentionDims& n = c.dims;
  Inputs in;
  // q is scaled up so the scores spread (std ≈ 1 after 1/√d): a flat softmax would average
  // the values to ~0 and hide errors under the absolute tolerance.
  std::vector<float> q = random_uniform(std::size_t(n.B * n.H * n.Lq * n.d), 1);
  for (float& x : q) x *= 3.0f;
  in.dq = upload_as(q, c.dtype, &in.q);
  in.dk = upload_as(random_uniform(std::size_t(n.B * n.H * n.Lk * n.d), 2), c.dtype, &in.k);
  in.dv = upload_as(random_uniform(std::size_t(n.B * n.H * n.Lk * n.d), 3), c.dtype, &in.v);
  in.dout = DeviceBuffer(std::size_t(n.B * n.H * n.Lq * n.d) * dtype_size(c.dtype));
  if (c.padding) {
    in.padding.assign(std::size_t(n.B * n.Lk), 0);
    for (long long b = 0; b < n.B; ++b) {
      for (long long j = n.Lk - n.Lk / 8; j < n.Lk; ++j) in.padding[std::size_t(b * n.Lk + j)] = 1;
    }
    in.dpadding = DeviceBuffer(in.padding.size());
    in.dpadding.upload(in.padding.data(), in.padding.size());
  }
  if (c.bias != PositionMethod::kNone) {
    const std::vector<float> parameters = score_bias_parameters(score_bias_of(c), n.H);
    in.dparameters = DeviceBuffer(std::max<std::size_t>(parameters.size(), 1) * sizeof(float));
    if (!parameters.empty()) in.dparameters.upload(parameters.data(), parameters.size() * 4);
  }
  if (c.rope) {
    in.freq.emplace(n.d, *c.rope, 0);
    if (c.rope_separate) {
      in.dq_rot = DeviceBuffer(in.dq.bytes());
      in.dk_rot = DeviceBuffer(in.dk.bytes());
    }
  }
  return in;
}

// poslab::attention on query rows [r0, r1) of `heads` in batch b, mask and score bias as a bias.
std::vector<float> reference_rows(const Case& c, const Inputs& in, long long b,
                                  const std::vector<long long>& heads, long long r0, long long r1) {
  const AttentionDims& n = c.dims;
  const std::size_t Hs = heads.size(), R = std::size_t(r1 - r0), d = std::size_t(n.d),
                    Lk = std::size_t(n.Lk);
  TensorF q({Hs, R, d}), k({Hs, Lk, d}), v({Hs, Lk, d}), bias({Hs, R, Lk});
  // The score bias of every head, rows r0.. at their positions (the core's tensor).
  const TensorF full = c.bias == PositionMethod::kNone
                           ? TensorF()
                           : score_bias_tensor(score_bias_of(c), n.H, r1 - r0, n.Lk, r0);
  for (std::size_t s = 0; s < Hs; ++s) {
    const long long h = heads[s];
    const std::size_t bh = std::size_t(b * n.H + h);
    if (c.rope) {
      const std::vector<float> qr =
          rotated(in.q.data() + bh * n.Lq * d, r0, r1, n.d, *c.rope, c.dtype);
      const std::vector<float> kr =
          rotated(in.k.data() + bh * Lk * d, 0, n.Lk, n.d, *c.rope, c.dtype);
      std::copy(qr.begin(), qr.end(), q.ptr() + s * R * d);
      std::copy(kr.begin(), kr.end(), k.ptr() + s * Lk * d);
    } else {
      std::copy_n(in.q.begin() + (bh * n.Lq + r0) * d, R * d, q.ptr() + s * R * d);
      std::copy_n(in.k.begin() + bh * Lk * d, Lk * d, k.ptr() + s * Lk * d);
    }
    std::copy_n(in.v.begin() + bh * Lk * d, Lk * d, v.ptr() + s * Lk * d);
    for (std::size_t r = 0; r < R; ++r) {
      const long long i = r0 + static_cast<long long>(r);
      for (std::size_t j = 0; j < Lk; ++j) {
        const std::uint8_t* pad =
            in.padding.empty() ? nullptr : in.padding.data() + std::size_t(b) * Lk;
        const bool hidden =
            c.mask.rule().hides(i, static_cast<long long>(j), static_cast<long long>(Lk), pad);
        float value = full.size() ? full.data[(std::size_t(h) * R + r) * Lk + j] : 0.0f;
        if (hidden) value = -std::numeric_limits<float>::infinity();
        bias.data[(s * R + r) * Lk + j] = value;
      }
    }
  }
  AttentionOptions options;
  options.bias = &bias;
  options.return_weights = false;
  return poslab::attention(q, k, v, options).output.data;
}

// GPU output rows [r0, r1) of `heads` in batch b, as float32, in reference_rows' order.
std::vector<float> output_rows(const Case& c, const Inputs& in, long long b,
                               const std::vector<long long>& heads, long long r0, long long r1) {
  const AttentionDims& n = c.dims;
  const std::size_t R = std::size_t(r1 - r0), d = std::size_t(n.d), bytes = dtype_size(c.dtype);
  std::vector<float> out;
  for (long long h : heads) {
    const std::size_t first = (std::size_t(b * n.H + h) * n.Lq + r0) * d;
    std::vector<unsigned char> raw(R * d * bytes);
    check(cudaMemcpy(raw.data(), in.dout.as<unsigned char>() + first * bytes, raw.size(),
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy to host");
    std::vector<float> rows(R * d);
    if (c.dtype == DType::kF32) {
      std::memcpy(rows.data(), raw.data(), raw.size());
    } else {
      std::vector<std::uint16_t> bits(R * d);
      std::memcpy(bits.data(), raw.data(), raw.size());
      rows = from_half_bits(bits, c.dtype);
    }
    out.insert(out.end(), rows.begin(), rows.end());
  }
  return out;
}

// Two heads (first and last, different ALiBi slopes) of the last batch; rows [0, 64) and the
// last 64 (the longest causal rows), or all rows when Lq <= 128.
Comparison validate(const Case& c, const Inputs& in, std::string* where) {
  const AttentionDims& n = c.dims;
  const long long b = n.B - 1;
  const std::vector<long long> heads =
      n.H > 1 ? std::vector<long long>{0, n.H - 1} : std::vector<long long>{0};
  std::vector<std::pair<long long, long long>> ranges = {{0, n.Lq}};
  if (n.Lq > 128) ranges = {{0, 64}, {n.Lq - 64, n.Lq}};
  std::vector<float> got, want;
  for (auto [r0, r1] : ranges) {
    const std::vector<float> g = output_rows(c, in, b, heads, r0, r1);
    const std::vector<float> w = reference_rows(c, in, b, heads, r0, r1);
    got.insert(got.end(), g.begin(), g.end());
    want.insert(want.end(), w.begin(), w.end());
  }
  *where =
      "batch " + std::to_string(b) + ", heads {0, " + std::to_string(n.H - 1) + "}, rows " +
      (n.Lq > 128 ? "[0, 64) and [" + std::to_string(n.Lq - 64) + ", " + std::to_string(n.Lq) + ")"
                  : "all");
  return compare(got, want, tolerance_for(c.dtype));
}

// Visible (query, key) pairs: the matrix FLOPs are 4·d per pair (Q Kᵀ and P V).
double visible_pairs(const Case& c) {
  const AttentionDims& n = c.dims;
  double pairs = 0.0;
  for (long long i = 0; i < n.Lq; ++i) {
    long long lo = 0, hi = n.Lk;
    if (c.mask.kind != MaskKind::kNone) hi = std::min(n.Lk, i + 1);
    if (c.mask.kind == MaskKind::kSlidingWindow) lo = std::max(0LL, i - c.mask.window + 1);
    pairs += double(std::max(0LL, hi - lo));
  }
  return pairs * double(n.B * n.H);
}

// variant 1 is the naive path, 2-4 the fused kernels (attention.hpp).
void run_case(Context& ctx, const Case& c, Inputs& in, int variant, cublasHandle_t blas,
              DeviceBuffer& ws) {
  const bool naive = variant == 1;
  AttentionConfig config;
  config.mask = c.mask;
  config.key_padding = c.padding ? in.dpadding.as<std::uint8_t>() : nullptr;
  const AttentionDims& n = c.dims;
  const ScoreBias bias = score_bias_of(c);
  if (c.bias == PositionMethod::kT5 && naive) {  // materialised once, outside the timing (as a
                                                 // peer's bias tensor)
    if (in.dbias.bytes() == 0) {
      in.dbias = DeviceBuffer(std::size_t(n.H * n.Lq * n.Lk) * sizeof(float));
      t5_bias(in.dbias.as<float>(), in.dparameters.as<float>(), n.H, n.Lq, n.Lk, t5_options(bias));
    }
    config.bias = in.dbias.as<float>();
  } else if (c.bias != PositionMethod::kNone) {
    config.score_bias = c.bias;
    config.bias_parameters = in.dparameters.as<float>();
    config.bias_shape.options[0] = bias.options[0];
    config.bias_shape.options[1] = bias.options[1];
    config.bias_shape.bidirectional = bias.bidirectional;
  }
  if (c.rope && !c.rope_separate) config.rope = &*in.freq;
  if (naive) {
    const std::size_t need = attention_naive_workspace(n, c.dtype);
    if (ws.bytes() < need) {
      ws = DeviceBuffer();  // free first: the workspace is the largest allocation
      ws = DeviceBuffer(need);
    }
  }
  auto launch = [&] {
    if (naive) {
      attention_naive(in.dq.get(), in.dk.get(), in.dv.get(), in.dout.get(), c.dtype, n, config,
                      blas, ws.get(), ws.bytes());
    } else if (c.rope_separate) {
      rope_apply(in.dq.get(), in.dq_rot.get(), c.dtype, n.B * n.H, n.Lq, *in.freq, 0);
      rope_apply(in.dk.get(), in.dk_rot.get(), c.dtype, n.B * n.H, n.Lk, *in.freq, 0);
      attention_flash(in.dq_rot.get(), in.dk_rot.get(), in.dv.get(), in.dout.get(), c.dtype, n,
                      config, variant);
    } else {
      attention_flash(in.dq.get(), in.dk.get(), in.dv.get(), in.dout.get(), c.dtype, n, config,
                      variant);
    }
  };
  launch();
  check(cudaDeviceSynchronize(), "attention");
  Record r;
  r.tolerance = tolerance_for(c.dtype);
  r.check = validate(c, in, &r.validated_on);
  r.kernel = "attention";
  const std::string fused = variant == 2 ? "2-flash" : variant == 3 ? "3-flash128" : "4-flash128x2";
  r.variant = naive ? "1-naive" : c.rope_separate ? "rope+" + fused : fused;
  r.dtype = dtype_name(c.dtype);
  r.shape = {{"B", n.B}, {"H", n.H}, {"Lq", n.Lq}, {"Lk", n.Lk}, {"d", n.d}};
  r.params = {{"mask", c.label}, {"causal", c.mask.kind != MaskKind::kNone}};
  if (c.bias != PositionMethod::kNone || c.rope) {
    r.params["position"] = c.rope ? "rope" : to_string(c.bias);
    r.params["in_kernel"] = !naive && !c.rope_separate;  // false: a bias tensor or a RoPE pass
    if (c.rope) r.params["style"] = name_of(kRopeStyleNames, c.rope->style);
  }
  r.timing = time_launches(launch);
  r.flops = 4.0 * double(n.d) * visible_pairs(c);
  ctx.add(std::move(r));
}

// The fused kernels, then (unless flash_only) the naive path, on the same inputs.
void run_paths(Context& ctx, const Case& c, cublasHandle_t blas, DeviceBuffer& ws,
               bool flash_only = false) {
  Inputs in = make_inputs(c);
  for (int variant = 2; variant <= kAttentionVariants; ++variant) {
    run_case(ctx, c, in, variant, blas, ws);
  }
  if (!flash_only) run_case(ctx, c, in, 1, blas, ws);
}

}  // namespace

void run_attention(Context& ctx) {
  cublasHandle_t blas;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) throw Error("cublasCreate failed");
  DeviceBuffer workspace;
  const std::vector<long long> lengths =
      ctx.quick ? std::vector<long long>{4096}
                : std::vector<long long>{512, 1024, 2048, 4096, 8192, 16384};
  for (long long d : {64LL, 128LL}) {
    const long long H = d == 64 ? 32 : 16;
    for (long long L : lengths) {
      for (bool causal : {false, true}) {
        Case c;
        c.dims = {16384 / L, H, L, L, d};
        c.mask = causal ? Mask{MaskKind::kCausal, 0} : Mask{};
        c.label = causal ? "causal" : "none";
        run_paths(ctx, c, blas, workspace);
        if (L == 4096) {
          c.dtype = DType::kBF16;
          run_paths(ctx, c, blas, workspace, /*flash_only=*/true);
        }
      }
    }
  }
  // Masks inside the kernels, at L = 4096, d = 128, fp16.
  std::vector<Case> masks(2);
  for (Case& c : masks) c.dims = {4, 16, 4096, 4096, 128};
  masks[0].mask = {MaskKind::kSlidingWindow, 1024};
  masks[0].label = "window:1024";
  masks[1].padding = true;
  masks[1].label = "key_padding(1/8)";
  for (const Case& c : masks) run_paths(ctx, c, blas, workspace);
  cublasDestroy(blas);
}

void run_position(Context& ctx) {
  cublasHandle_t blas;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) throw Error("cublasCreate failed");
  DeviceBuffer workspace;
  // B = 4, H = 16, d = 128, fp16.
  for (long long L :
       ctx.quick ? std::vector<long long>{4096} : std::vector<long long>{4096, 8192}) {
    Case c;
    c.dims = {4, 16, L, L, 128};
    c.mask = {MaskKind::kCausal, 0};
    c.label = "causal";
    // The plain kernel at this shape, unless the attention suite times it (B·L = 16 384).
    if (16384 / L != c.dims.B) run_paths(ctx, c, blas, workspace, /*flash_only=*/true);
    c.bias = PositionMethod::kAlibi;
    c.label = "causal+alibi";
    run_paths(ctx, c, blas, workspace);
    c.bias = PositionMethod::kKerple;
    c.label = "causal+kerple";
    run_paths(ctx, c, blas, workspace);
    c.bias = PositionMethod::kNone;
    c.rope = RopeOptions{};
    c.label = "causal+rope";
    run_paths(ctx, c, blas, workspace, /*flash_only=*/true);
    c.rope_separate = true;
    run_paths(ctx, c, blas, workspace, /*flash_only=*/true);
    Case t5;  // an encoder's: bidirectional buckets, no mask
    t5.dims = c.dims;
    t5.bias = PositionMethod::kT5;
    t5.label = "t5";
    // The naive path materialises T5's (H, L, L) bias, which the core refuses past kMaxElements
    // (at L = 8192): the fused kernels are timed alone there.
    const bool bias_fits = double(t5.dims.H) * double(L) * double(L) <= double(kMaxElements);
    run_paths(ctx, t5, blas, workspace, /*flash_only=*/!bias_fits);
  }
  cublasDestroy(blas);
}

}  // namespace poslab::cuda::bench
