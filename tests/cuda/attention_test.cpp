// Attention forward from the GPU (naive and fused) against poslab::attention, batch by batch:
// masks, key padding, the score biases through their terms (ALiBi, T5, KERPLE; T5 also as a bias
// tensor for naive), RoPE
// plain and decaying (xPos) on load (fused, one position method per call; the reference rotates
// with poslab::rope_apply), lengths that are not multiples of the tiles, Lq != Lk, and rows
// that see no key.
#include "poslab/layers/attention.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

#include "gpu_test.hpp"
#include "poslab/cuda/attention.hpp"
#include "poslab/positions/position_methods.hpp"
#include "poslab/positions/rope.hpp"
#include "poslab/positions/score_bias_tensor.hpp"

namespace poslab::cuda::testing {
namespace {

enum class Path { kNaive, kFlash };

constexpr std::uint64_t kBiasSeed = 5;

// A score bias at its table defaults, seeded; T5 with bidirectional buckets unless told.
poslab::ScoreBias Bias(PositionMethod method, bool bidirectional = true) {
  poslab::ScoreBias bias = poslab::score_bias_defaults(method);
  bias.seed = kBiasSeed;
  bias.bidirectional = bidirectional;
  return bias;
}

struct Case {
  AttentionDims dims;
  DType dtype = DType::kF16;
  Mask mask;
  poslab::ScoreBias bias;             // method kNone: none
  bool bias_as_tensor = false;        // naive: the core's (H, Lq, Lk) tensor instead of the term
  std::vector<std::uint8_t> padding;  // (B, Lk) or empty
  std::optional<poslab::RopeOptions> rope;  // flash only
};

bool Biased(const Case& c) { return c.bias.method != PositionMethod::kNone; }

// The position bias the kernels must reproduce, from the core with the mask's offset: query i
// at i + offset (mask.hpp), so the kernels, which compute the term in place, are checked
// against the CPU core's own tensor of the same term.
TensorF PositionBias(const Case& c) {
  const AttentionDims& n = c.dims;
  return poslab::score_bias_tensor(c.bias, n.H, n.Lq, n.Lk, c.mask.offset);
}

// x (H, L, d) rotated (and with a decay, scaled for `side`) at positions offset.. of
// offset + L, rounded to the storage type: what the fused kernel holds in shared memory before
// its products.
std::vector<float> Rotated(const std::vector<float>& x, const poslab::Shape& shape,
                           const poslab::RopeOptions& options, long long offset,
                           poslab::RotationSide side, DType dtype) {
  const TensorF rotated = poslab::rope_apply(TensorF(shape, x), options, offset, side);
  return poslab::cuda::from_half_bits(poslab::cuda::to_half_bits(rotated.data, dtype), dtype);
}

std::vector<float> Values(std::size_t n, double phase, double amplitude) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = float(amplitude * std::sin(0.731 * double(i) + phase));
  return x;
}

std::string Describe(const Case& c, Path path) {
  const AttentionDims& n = c.dims;
  return std::string(path == Path::kFlash ? "flash" : "naive") + " " +
         poslab::cuda::dtype_name(c.dtype) + " B" + std::to_string(n.B) + " H" +
         std::to_string(n.H) + " Lq" + std::to_string(n.Lq) + " Lk" + std::to_string(n.Lk) + " d" +
         std::to_string(n.d) + " mask " + std::to_string(int(c.mask.kind)) + " window " +
         std::to_string(c.mask.window) + " offset " + std::to_string(c.mask.offset) +
         (Biased(c)
              ? std::string(" ") + poslab::to_string(c.bias.method) + " " +
                    std::to_string(c.bias.options[0]) + "/" + std::to_string(c.bias.options[1]) +
                    (c.bias.bidirectional ? " bidirectional" : "") +
                    (c.bias_as_tensor ? " as a tensor" : "")
              : "") +
         (c.padding.empty() ? "" : " padding") +
         (c.rope ? std::string(" rope ") + poslab::name_of(poslab::kRopeStyleNames, c.rope->style) +
                       " " + poslab::to_string(c.rope->scaling) + " base " +
                       std::to_string(c.rope->base) + " scale base " +
                       std::to_string(c.rope->scale_base)
                 : "");
}

// Runs the case on the GPU (flash: fused kernel `variant`) and with the core, batch by batch;
// returns both (B, H, Lq, d).
void RunCase(const Case& c, Path path, std::vector<float>* got, std::vector<float>* want,
             int variant = 2) {
  const AttentionDims& n = c.dims;
  const std::size_t qn = std::size_t(n.B * n.H * n.Lq * n.d),
                    kn = std::size_t(n.B * n.H * n.Lk * n.d);
  std::vector<float> q, k, v;
  DeviceBuffer dq = poslab::cuda::upload_as(Values(qn, 0.1, 3.0), c.dtype, &q);
  DeviceBuffer dk = poslab::cuda::upload_as(Values(kn, 0.7, 1.0), c.dtype, &k);
  DeviceBuffer dv = poslab::cuda::upload_as(Values(kn, 2.3, 1.0), c.dtype, &v);
  DeviceBuffer dout(qn * poslab::cuda::dtype_size(c.dtype));

  AttentionConfig config;
  config.mask = c.mask;
  DeviceBuffer dpadding, dbias;
  if (!c.padding.empty()) {
    dpadding = DeviceBuffer(c.padding.size());
    dpadding.upload(c.padding.data(), c.padding.size());
    config.key_padding = dpadding.as<std::uint8_t>();
  }
  const TensorF bias = Biased(c) ? PositionBias(c) : TensorF();
  DeviceBuffer dparameters;
  if (Biased(c) && c.bias_as_tensor && path == Path::kNaive) {
    dbias = DeviceBuffer(bias.size() * sizeof(float));
    dbias.upload(bias.ptr(), bias.size() * sizeof(float));
    config.bias = dbias.as<float>();
  } else if (Biased(c)) {
    // The term's parameters as the core drew them for its tensor (the same seed).
    const std::vector<float> parameters = poslab::score_bias_parameters(c.bias, n.H);
    dparameters = DeviceBuffer(std::max<std::size_t>(parameters.size(), 1) * sizeof(float));
    if (!parameters.empty()) dparameters.upload(parameters.data(), parameters.size() * 4);
    config.score_bias = c.bias.method;
    config.bias_parameters = dparameters.as<float>();
    config.bias_shape.options[0] = c.bias.options[0];
    config.bias_shape.options[1] = c.bias.options[1];
    config.bias_shape.bidirectional = c.bias.bidirectional;
  }
  std::optional<poslab::cuda::DeviceRopeFrequencies> freq;
  if (c.rope) {
    freq.emplace(n.d, *c.rope, 0);
    config.rope = &*freq;
  }

  if (path == Path::kFlash) {
    poslab::cuda::attention_flash(dq.get(), dk.get(), dv.get(), dout.get(), c.dtype, n, config,
                                  variant);
  } else {
    cublasHandle_t blas;
    ASSERT_EQ(cublasCreate(&blas), CUBLAS_STATUS_SUCCESS);
    const std::size_t bytes = poslab::cuda::attention_naive_workspace(n, c.dtype);
    DeviceBuffer workspace(bytes);
    poslab::cuda::attention_naive(dq.get(), dk.get(), dv.get(), dout.get(), c.dtype, n, config,
                                  blas, workspace.get(), bytes);
    Sync();
    cublasDestroy(blas);
  }
  Sync();
  *got = poslab::cuda::download_as_float(dout, qn, c.dtype);

  want->clear();
  const std::size_t per_q = std::size_t(n.H * n.Lq * n.d), per_k = std::size_t(n.H * n.Lk * n.d);
  const poslab::Shape qs{std::size_t(n.H), std::size_t(n.Lq), std::size_t(n.d)};
  const poslab::Shape ks{std::size_t(n.H), std::size_t(n.Lk), std::size_t(n.d)};
  for (long long b = 0; b < n.B; ++b) {
    std::vector<float> qv(q.begin() + b * per_q, q.begin() + (b + 1) * per_q);
    std::vector<float> kv(k.begin() + b * per_k, k.begin() + (b + 1) * per_k);
    if (c.rope) {
      qv = Rotated(qv, qs, *c.rope, c.mask.offset, poslab::RotationSide::kQuery, c.dtype);
      kv = Rotated(kv, ks, *c.rope, 0, poslab::RotationSide::kKey, c.dtype);
    }
    const TensorF qb(qs, qv);
    const TensorF kb(ks, kv);
    const TensorF vb(ks, std::vector<float>(v.begin() + b * per_k, v.begin() + (b + 1) * per_k));
    poslab::AttentionOptions options;
    options.mask = c.mask;
    options.return_weights = false;
    if (!c.padding.empty()) {
      options.key_padding.assign(c.padding.begin() + b * n.Lk, c.padding.begin() + (b + 1) * n.Lk);
    }
    if (Biased(c)) options.bias = &bias;
    const TensorF out = poslab::attention(qb, kb, vb, options).output;
    want->insert(want->end(), out.data.begin(), out.data.end());
  }
}

// The flash path checks every fused variant (64- and 128-query blocks).
void ExpectMatchesCore(const Case& c, Path path) {
  SCOPED_TRACE(Describe(c, path));
  for (int variant = 2; variant <= (path == Path::kFlash ? poslab::cuda::kAttentionVariants : 2);
       ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    std::vector<float> got, want;
    RunCase(c, path, &got, &want, variant);
    EXPECT_TRUE(Close(got, want, tolerance_for(c.dtype)));
  }
}

// The fused kernels with c's position method on both storage types, both head widths and
// every mask, B = 2, H = 3, L = 200 (three full 64-row tiles and a partial one).
void ExpectFlashMatchesCoreForEveryTypeWidthAndMask(Case c) {
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    for (long long d : {64LL, 128LL}) {
      for (const Mask mask :
           {Mask{}, Mask{MaskKind::kCausal, 0}, Mask{MaskKind::kSlidingWindow, 40}}) {
        c.dims = {2, 3, 200, 200, d};
        c.dtype = dtype;
        c.mask = mask;
        ExpectMatchesCore(c, Path::kFlash);
      }
    }
  }
}

std::vector<std::uint8_t> PadTail(long long B, long long Lk, long long hidden) {
  std::vector<std::uint8_t> p(std::size_t(B * Lk), 0);
  for (long long b = 0; b < B; ++b) {
    for (long long j = Lk - hidden * (b + 1); j < Lk; ++j) {
      if (j >= 0) p[std::size_t(b * Lk + j)] = 1;
    }
  }
  return p;
}

// The masks and biases every path supports, on one shape.
std::vector<Case> MaskCases(AttentionDims dims, DType dtype) {
  std::vector<Case> cases(5);
  for (Case& c : cases) {
    c.dims = dims;
    c.dtype = dtype;
  }
  cases[1].mask = {MaskKind::kCausal, 0};
  cases[2].mask = {MaskKind::kSlidingWindow, 40};
  cases[3].padding = PadTail(dims.B, dims.Lk, 30);
  cases[4].mask = {MaskKind::kCausal, 0};
  cases[4].bias = Bias(PositionMethod::kAlibi);
  Case kerple = cases[4];
  kerple.bias = Bias(PositionMethod::kKerple);
  cases.push_back(kerple);
  return cases;
}

TEST(AttentionNaive, Fp32MatchesCoreWithEveryMaskAndBias) {
  std::vector<Case> cases = MaskCases({2, 3, 70, 70, 16}, DType::kF32);
  Case t5 = cases[0];
  t5.bias = Bias(PositionMethod::kT5);
  cases.push_back(t5);
  t5.bias_as_tensor = true;
  cases.push_back(t5);
  Case odd = cases[1];  // Lk not a multiple of 4: the scalar softmax
  odd.dims = {1, 2, 33, 45, 24};
  cases.push_back(odd);
  for (const Case& c : cases) ExpectMatchesCore(c, Path::kNaive);
}

TEST(AttentionNaive, HalfAndBfloatMatchCore) {
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    for (const Case& c : MaskCases({2, 2, 130, 130, 64}, dtype)) {
      ExpectMatchesCore(c, Path::kNaive);
    }
  }
}

TEST(AttentionFlash, MatchesCoreWithEveryMask) {
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    for (long long d : {64LL, 128LL}) {
      // 200 queries: three full 64-row tiles and a partial one.
      for (const Case& c : MaskCases({2, 3, 200, 200, d}, dtype)) {
        ExpectMatchesCore(c, Path::kFlash);
      }
    }
  }
}

TEST(AttentionFlash, MatchesCoreWhenLqDiffersFromLk) {
  for (auto [Lq, Lk] : {std::pair{100LL, 150LL}, std::pair{150LL, 100LL}, std::pair{1LL, 300LL}}) {
    for (const Case& c : MaskCases({1, 2, Lq, Lk, 64}, DType::kF16)) {
      ExpectMatchesCore(c, Path::kFlash);
    }
  }
}

TEST(AttentionFlash, MatchesCoreAtLongerLength) {
  Case c;
  c.dims = {1, 2, 1024, 1024, 128};
  for (MaskKind kind : {MaskKind::kNone, MaskKind::kCausal}) {
    c.mask = {kind, 0};
    ExpectMatchesCore(c, Path::kFlash);
    ExpectMatchesCore(c, Path::kNaive);
  }
}

TEST(AttentionFlash, RowsThatSeeNoKeyAreZeroNotNaN) {
  for (Path path : {Path::kFlash, Path::kNaive}) {
    Case c;
    c.dims = {2, 2, 96, 96, 64};
    c.padding.assign(2 * 96, 0);
    for (long long j = 0; j < 96; ++j) c.padding[std::size_t(96 + j)] = 1;  // batch 1: every key
    for (int variant = 2; variant <= (path == Path::kFlash ? poslab::cuda::kAttentionVariants : 2);
         ++variant) {
      std::vector<float> got, want;
      RunCase(c, path, &got, &want, variant);
      for (std::size_t e = got.size() / 2; e < got.size(); ++e) ASSERT_EQ(got[e], 0.0f) << e;
      EXPECT_TRUE(Close(got, want, tolerance_for(c.dtype)));
    }
    // A window of 1 under a causal mask keeps only the diagonal: no row is empty there.
    c.padding.clear();
    c.mask = {MaskKind::kSlidingWindow, 1};
    ExpectMatchesCore(c, path);
  }
}

// Query i at position i + offset (poslab::MaskRule, mask.hpp): both kernels read the rule of
// the reference, here with bottom-right alignment (offset Lk − Lq), offsets that hide whole
// rows and whole tiles, and windows that cross tile edges.
TEST(AttentionMask, BothPathsMatchCoreWithAnOffset) {
  struct Shape {
    long long Lq, Lk, offset;
  };
  for (Path path : {Path::kNaive, Path::kFlash}) {
    for (const Shape s : {Shape{100, 150, 50}, Shape{150, 100, -50}, Shape{1, 300, 299},
                          Shape{70, 200, 130}, Shape{64, 64, -70}, Shape{130, 130, 7}}) {
      for (const Mask mask :
           {Mask{MaskKind::kCausal, 0, s.offset}, Mask{MaskKind::kSlidingWindow, 1, s.offset},
            Mask{MaskKind::kSlidingWindow, 65, s.offset}}) {
        Case c;
        c.dims = {1, 2, s.Lq, s.Lk, 64};
        c.mask = mask;
        ExpectMatchesCore(c, path);
        c.padding = PadTail(1, s.Lk, 9);
        ExpectMatchesCore(c, path);
        c.bias = Bias(PositionMethod::kAlibi);  // at position i + offset
        ExpectMatchesCore(c, path);
        c.bias = Bias(PositionMethod::kKerple);
        ExpectMatchesCore(c, path);
      }
    }
  }
}

// T5's buckets computed in the kernel, from the (buckets, H) table: every mask, lengths past
// max_distance (the logarithmic buckets saturate), and query positions moved by an offset.
TEST(AttentionFlash, T5BucketsInsideTheKernelMatchCore) {
  Case every;
  every.bias = Bias(PositionMethod::kT5);
  ExpectFlashMatchesCoreForEveryTypeWidthAndMask(every);
  Case far;
  far.dims = {1, 2, 600, 600, 64};
  far.bias = Bias(PositionMethod::kT5);
  ExpectMatchesCore(far, Path::kFlash);
  // A decoder's buckets: unidirectional (every key after the query shares bucket 0), causal,
  // with other bucket counts and distances.
  far.mask = {MaskKind::kCausal, 0};
  far.bias = Bias(PositionMethod::kT5, false);
  far.bias.options = {16, 50};
  ExpectMatchesCore(far, Path::kFlash);
  far.bias = Bias(PositionMethod::kT5);
  far.bias.options = {64, 300};
  ExpectMatchesCore(far, Path::kFlash);
  for (const Mask mask : {Mask{MaskKind::kCausal, 0, 50}, Mask{MaskKind::kNone, 0, -70}}) {
    Case c;
    c.dims = {1, 2, 100, 150, 64};
    c.mask = mask;
    c.bias = Bias(PositionMethod::kT5);
    c.padding = PadTail(1, 150, 9);
    ExpectMatchesCore(c, Path::kFlash);
  }
}

// KERPLE's term in the kernel, seeded per-head r1, r2 and given ones: every type, width and mask,
// and a long causal sequence where log(1 + r2·|p − j|) grows past the tile.
TEST(AttentionFlash, KerpleInsideTheKernelMatchesCore) {
  Case every;
  every.bias = Bias(PositionMethod::kKerple);
  ExpectFlashMatchesCoreForEveryTypeWidthAndMask(every);
  Case given;
  given.dims = {1, 4, 600, 600, 128};
  given.mask = {MaskKind::kCausal, 0};
  given.bias = Bias(PositionMethod::kKerple);
  given.bias.options = {0.7, 3.0};
  ExpectMatchesCore(given, Path::kFlash);
  ExpectMatchesCore(given, Path::kNaive);
}

// RoPE on the Q and K tiles as they land, against poslab::rope_apply then poslab::attention:
// both pairings, both widths and types, a partial rotary dim, YaRN's attention factor, query
// positions moved by an offset, and positions far past the tile (70 000).
TEST(AttentionFlash, RopeOnLoadMatchesRotatedCore) {
  for (poslab::RopeStyle style : {poslab::RopeStyle::kNeox, poslab::RopeStyle::kGptj}) {
    poslab::RopeOptions plain;
    plain.style = style;
    for (DType dtype : {DType::kF16, DType::kBF16}) {
      for (long long d : {64LL, 128LL}) {
        Case c;
        c.dims = {2, 3, 200, 200, d};
        c.dtype = dtype;
        c.mask = {MaskKind::kCausal, 0};
        c.rope = plain;
        ExpectMatchesCore(c, Path::kFlash);
      }
    }
    poslab::RopeOptions yarn = plain;
    yarn.scaling = poslab::RopeScaling::kYarn;
    yarn.factor = 4.0;
    yarn.original_length = 64;
    yarn.rotary_fraction = 0.5;
    Case c;
    c.dims = {1, 2, 100, 150, 64};
    c.mask = {MaskKind::kCausal, 0, 50};
    c.rope = yarn;
    c.padding = PadTail(1, 150, 9);
    ExpectMatchesCore(c, Path::kFlash);
    c.dims = {1, 2, 64, 130, 128};
    c.mask = {MaskKind::kNone, 0, 70000};
    c.rope = plain;
    c.padding.clear();
    ExpectMatchesCore(c, Path::kFlash);
  }
}

// The score modifiers at query positions far past the keys (70 000), where |p − j| and
// j − p are large and the T5 buckets saturate.
TEST(AttentionFlash, ScoreModifiersMatchCoreFarFromTheKeys) {
  Case c;
  c.dims = {1, 2, 64, 130, 128};
  c.mask = {MaskKind::kNone, 0, 70000};
  for (PositionMethod method :
       {PositionMethod::kAlibi, PositionMethod::kT5, PositionMethod::kKerple}) {
    c.bias = Bias(method);
    ExpectMatchesCore(c, Path::kFlash);
  }
}

// xPos, RoPE with a decay, on the Q and K tiles as they land, against poslab::rope_apply
// (queries at offset.. of offset + Lq, keys of Lk on the key side) then poslab::attention: both
// widths and types, every mask, an offset with Lq != Lk and padding, another base and scale
// base, a longer sequence whose scales ζ^(±e) move well away from 1, and a decay on neox pairs
// over part of the head with YaRN's attention factor.
TEST(AttentionFlash, XposOnLoadMatchesScaledRotatedCore) {
  const poslab::RopeOptions xpos = poslab::rotation_defaults(poslab::PositionMethod::kXpos);
  Case c;
  c.rope = xpos;
  ExpectFlashMatchesCoreForEveryTypeWidthAndMask(c);
  c.dims = {1, 2, 100, 150, 64};
  c.mask = {MaskKind::kCausal, 0, 50};
  c.padding = PadTail(1, 150, 9);
  poslab::RopeOptions other = xpos;
  other.base = 500.0;
  other.scale_base = 64.0;
  c.rope = other;
  ExpectMatchesCore(c, Path::kFlash);
  c.dims = {1, 2, 70, 200, 128};
  c.mask = {MaskKind::kNone, 0, 300};  // query totals (370) differ from the keys' (200)
  c.padding.clear();
  ExpectMatchesCore(c, Path::kFlash);
  c.dims = {1, 2, 1024, 1024, 64};
  c.mask = {MaskKind::kCausal, 0};
  c.rope = xpos;
  ExpectMatchesCore(c, Path::kFlash);
  poslab::RopeOptions yarn = xpos;
  yarn.style = poslab::RopeStyle::kNeox;
  yarn.scaling = poslab::RopeScaling::kYarn;
  yarn.factor = 4.0;
  yarn.original_length = 64;
  yarn.rotary_fraction = 0.5;
  c.dims = {1, 2, 100, 150, 128};
  c.mask = {MaskKind::kCausal, 0, 50};
  c.rope = yarn;
  ExpectMatchesCore(c, Path::kFlash);
}

TEST(AttentionNaive, RefusesTheFusedKernelsPositionOptions) {
  DeviceBuffer buffer(1 << 16);
  void* p = buffer.get();
  cublasHandle_t blas = nullptr;  // refused before any cuBLAS call
  AttentionConfig config;
  config.score_bias = PositionMethod::kFire;  // a trainer-only term: no GPU build computes it
  config.bias_parameters = buffer.as<float>();
  EXPECT_THROW(poslab::cuda::attention_naive(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config,
                                             blas, p, 1 << 16),
               poslab::Error);
  config = AttentionConfig{};
  const poslab::cuda::DeviceRopeFrequencies freq(64, poslab::RopeOptions{}, 0);
  config.rope = &freq;
  EXPECT_THROW(poslab::cuda::attention_naive(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config,
                                             blas, p, 1 << 16),
               poslab::Error);
  const poslab::cuda::DeviceRopeFrequencies xpos(
      64, poslab::rotation_defaults(poslab::PositionMethod::kXpos), 0);
  config.rope = &xpos;
  EXPECT_THROW(poslab::cuda::attention_naive(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config,
                                             blas, p, 1 << 16),
               poslab::Error);
}

TEST(AttentionFlash, RejectsWhatItDoesNotSupport) {
  DeviceBuffer buffer(1 << 16);
  void* p = buffer.get();
  AttentionConfig config;
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF32, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 96}, config),
               poslab::Error);
  config.mask = {MaskKind::kSlidingWindow, 0};
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  config.mask = {MaskKind::kCausal, 0, (1LL << 30) + 1};  // i + offset would overflow an int
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  config = AttentionConfig{};
  for (int variant : {1, poslab::cuda::kAttentionVariants + 1}) {  // 1: naive, needs a workspace
    EXPECT_THROW(
        poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config, variant),
        poslab::Error);
  }
  config = AttentionConfig{};
  config.score_bias = PositionMethod::kT5;
  config.bias_parameters = buffer.as<float>();
  config.bias_shape.options[0] = 1;  // one bucket
  config.bias_shape.options[1] = 128;
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  config.bias_shape.options[0] = 32;
  config.bias_parameters = nullptr;  // T5 without its table
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  config.score_bias = PositionMethod::kFire;  // not a function of j − p alone
  config.bias_parameters = buffer.as<float>();
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  config = AttentionConfig{};
  config.bias = buffer.as<float>();  // a bias tensor is naive's
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  config = AttentionConfig{};
  const poslab::cuda::DeviceRopeFrequencies wide(128, poslab::RopeOptions{}, 0);
  config.rope = &wide;  // frequencies for another head width
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  const poslab::cuda::DeviceRopeFrequencies fits(64, poslab::RopeOptions{}, 0);
  config.rope = &fits;
  config.mask = {MaskKind::kCausal, 0, -1};  // query 0 at position -1, before RoPE's first
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  config.mask = Mask{};
  config.score_bias = PositionMethod::kAlibi;  // two position methods: one at a time
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  config.score_bias = PositionMethod::kNone;
  poslab::RopeOptions two;
  two.rotary_fraction = 2.0 / 64;  // R = 2: one pair, not a whole step of two
  const poslab::cuda::DeviceRopeFrequencies narrow(64, two, 0);
  config.rope = &narrow;
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  config = AttentionConfig{};
  const poslab::RopeOptions decaying = poslab::rotation_defaults(poslab::PositionMethod::kXpos);
  const poslab::cuda::DeviceRopeFrequencies xpos_wide(128, decaying, 0);
  config.rope = &xpos_wide;  // frequencies for another head width
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  const poslab::cuda::DeviceRopeFrequencies xpos(64, decaying, 0);
  config.rope = &xpos;
  config.mask = {MaskKind::kCausal, 0, -1};  // query 0 at position -1
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  // The last of 20 000 keys is scaled by ζ_0^(−e) = 3.5^(10 000/512) ≈ 4e10, past fp16's 65504
  // (refused before anything is launched, so the small buffer is never read).
  config.mask = Mask{};
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 20000, 64}, config),
               poslab::Error);
  config.score_bias = PositionMethod::kAlibi;  // xPos and ALiBi: two methods
  EXPECT_THROW(poslab::cuda::attention_flash(p, p, p, p, DType::kF16, {1, 1, 4, 4, 64}, config),
               poslab::Error);
  poslab::RopeOptions bad = decaying;
  bad.base = 1.0;
  EXPECT_THROW(poslab::cuda::DeviceRopeFrequencies(64, bad, 0), poslab::Error);
  bad = decaying;
  bad.scale_base = -512.0;  // 0 is no decay; below it, nothing
  EXPECT_THROW(poslab::cuda::DeviceRopeFrequencies(64, bad, 0), poslab::Error);
  EXPECT_THROW(poslab::cuda::DeviceRopeFrequencies(63, decaying, 0), poslab::Error);
}

}  // namespace
}  // namespace poslab::cuda::testing
