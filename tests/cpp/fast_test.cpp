// The float32 SIMD fast paths (poslab::fast) against the double-accumulating reference
// functions of the same name, which the CLI uses and every other build is checked against.
// Tolerance: kTight (1e-6 + 1e-6·|ref|), the policy stated in fast.hpp; the WASM tests apply
// the same bound to the same functions compiled to SIMD128.
#include "poslab/fast/fast.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "poslab/positions/formulas.hpp"
#include "reference.hpp"

namespace {

using poslab::AttentionOptions;
using poslab::Mask;
using poslab::MaskKind;
using poslab::RopeOptions;
using poslab::RopeScaling;
using poslab::RopeStyle;
using poslab::SinusoidalLayout;
using poslab::TensorF;

// Both calls throw poslab::Error with the same message, or neither throws.
void ExpectSameError(const std::function<void()>& reference, const std::function<void()>& fast) {
  std::string want, got;
  try {
    reference();
  } catch (const poslab::Error& e) {
    want = e.what();
  }
  try {
    fast();
  } catch (const poslab::Error& e) {
    got = e.what();
  }
  EXPECT_FALSE(want.empty()) << "the reference accepted the input";
  EXPECT_EQ(got, want);
}

TEST(FastPaths, ReportTheirTarget) {
  const std::string target = poslab::fast::simd_target();
  EXPECT_FALSE(target.empty());
  std::cout << "fast paths compiled for " << target << "\n";
}

TEST(FastSinusoidal, MatchesReference) {
  struct Case {
    long long L, D;
    double base;
    long long offset;
  };
  // Widths that leave a partial vector of pairs (D/2 not a multiple of the lane count), and
  // far offsets, where only double-reduced angles stay within tolerance.
  for (const Case& c :
       {Case{1, 2, 1e4, 0}, Case{7, 6, 1e4, 0}, Case{50, 512, 1e4, 0}, Case{33, 34, 100.0, 3},
        Case{64, 130, 5e5, 65'000}, Case{300, 64, 1e4, 1'000'000}, Case{0, 8, 1e4, 0}}) {
    for (const auto layout : {SinusoidalLayout::kInterleaved, SinusoidalLayout::kConcat}) {
      const TensorF want = poslab::sinusoidal_table(c.L, c.D, c.base, layout, c.offset);
      const TensorF got = poslab::fast::sinusoidal_table(c.L, c.D, c.base, layout, c.offset);
      EXPECT_EQ(got.shape, want.shape);
      EXPECT_ALLCLOSE(got, want, ref::kTight)
          << "L=" << c.L << " D=" << c.D << " offset=" << c.offset;
    }
  }
}

TEST(FastSinusoidal, RejectsWhatTheReferenceRejects) {
  for (const auto& c : std::vector<std::tuple<long long, long long, double>>{
           {-1, 8, 1e4},
           {4, 7, 1e4},
           {4, 0, 1e4},
           {4, 8, -2.0},
           {4, 8, std::numeric_limits<double>::quiet_NaN()}}) {
    // Not a structured binding: a lambda may capture one only from C++20 (clang refuses).
    const long long L = std::get<0>(c), D = std::get<1>(c);
    const double base = std::get<2>(c);
    ExpectSameError([&] { poslab::sinusoidal_table(L, D, base); },
                    [&] { poslab::fast::sinusoidal_table(L, D, base); });
  }
}

std::vector<RopeOptions> RopeConfigurations() {
  std::vector<RopeOptions> all;
  for (const RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
    RopeOptions o;
    o.style = style;
    all.push_back(o);
    o.rotary_fraction = 0.5;
    all.push_back(o);
    o.rotary_fraction = 1.0;
    o.factor = 4.0;
    o.original_length = 16;
    for (const RopeScaling s : {RopeScaling::kLinear, RopeScaling::kNtk, RopeScaling::kDynamic,
                                RopeScaling::kYarn, RopeScaling::kLlama3}) {
      o.scaling = s;
      all.push_back(o);
    }
  }
  return all;
}

TEST(FastRope, MatchesReferenceForEveryStyleAndScaling) {
  // (L, D) and (H, L, D) inputs, widths with a partial vector of pairs, far offsets.
  const std::vector<ref::Shape> shapes = {{9, 8}, {3, 17, 64}, {5, 12}, {2, 40, 20}};
  for (const RopeOptions& o : RopeConfigurations()) {
    for (const ref::Shape& shape : shapes) {
      for (const long long offset : {0LL, 5LL, 65'536LL}) {
        const TensorF x = ref::random_tensor(shape, 7, -2, 2);
        const std::string what = "scaling " + poslab::to_string(o.scaling) + " style " +
                                 std::to_string(int(o.style)) + " fraction " +
                                 std::to_string(o.rotary_fraction) + " shape " +
                                 ref::shape_str(shape) + " offset " + std::to_string(offset);
        // A partial rotary width must be even: skip shapes where D·fraction is odd.
        TensorF want;
        try {
          want = poslab::rope_apply(x, o, offset);
        } catch (const poslab::Error&) {
          ExpectSameError([&] { poslab::rope_apply(x, o, offset); },
                          [&] { poslab::fast::rope_apply(x, o, offset); });
          continue;
        }
        EXPECT_ALLCLOSE(poslab::fast::rope_apply(x, o, offset), want, ref::kTight) << what;
      }
    }
  }
}

TEST(FastRope, RotatesAnOwnedInputInPlaceToTheSameResult) {
  const TensorF x = ref::random_tensor({2, 9, 12}, 8, -2, 2);
  RopeOptions o;
  o.rotary_fraction = 0.5;
  const TensorF copied = poslab::fast::rope_apply(x, o, 3);
  TensorF owned = x;
  const float* storage = owned.ptr();
  const TensorF moved = poslab::fast::rope_apply(std::move(owned), o, 3);
  EXPECT_EQ(moved.data, copied.data);
  EXPECT_EQ(moved.ptr(), storage);  // no copy was made
}

TEST(FastRope, RejectsWhatTheReferenceRejects) {
  RopeOptions yarn_without_length;
  yarn_without_length.scaling = RopeScaling::kYarn;
  yarn_without_length.factor = 2.0;
  const TensorF odd = ref::random_tensor({4, 7}, 1);
  const TensorF four_d({1, 1, 2, 4});
  const TensorF ok = ref::random_tensor({4, 8}, 1);
  ExpectSameError([&] { poslab::rope_apply(odd, {}); }, [&] { poslab::fast::rope_apply(odd, {}); });
  ExpectSameError([&] { poslab::rope_apply(four_d, {}); },
                  [&] { poslab::fast::rope_apply(four_d, {}); });
  ExpectSameError([&] { poslab::rope_apply(ok, yarn_without_length); },
                  [&] { poslab::fast::rope_apply(ok, yarn_without_length); });
  ExpectSameError([&] { poslab::rope_apply(ok, {}, -1); },
                  [&] { poslab::fast::rope_apply(ok, {}, -1); });
}

void ExpectAttentionMatches(const TensorF& q, const TensorF& k, const TensorF& v,
                            const AttentionOptions& o, const std::string& what) {
  const poslab::AttentionResult want = poslab::attention(q, k, v, o);
  const poslab::AttentionResult got = poslab::fast::attention(q, k, v, o);
  EXPECT_ALLCLOSE(got.output, want.output, ref::kTight) << what;
  EXPECT_EQ(got.weights.shape, want.weights.shape) << what;
  EXPECT_ALLCLOSE(got.weights, want.weights, ref::kTight) << what;
}

std::vector<Mask> Masks() {
  return {Mask{MaskKind::kNone, 0}, Mask{MaskKind::kCausal, 0}, Mask{MaskKind::kSlidingWindow, 1},
          Mask{MaskKind::kSlidingWindow, 5}, Mask{MaskKind::kSlidingWindow, 40}};
}

TEST(FastAttention, MatchesReferenceForEveryMaskAndShape) {
  struct Case {
    std::size_t H, Lq, Lk, d, dv;
  };
  // Sizes off the 4-row / 2-vector blocking, Lq != Lk both ways, one realistic head size.
  for (const Case& c : {Case{1, 1, 1, 1, 1}, Case{2, 5, 7, 4, 3}, Case{3, 13, 9, 17, 5},
                        Case{2, 33, 33, 16, 16}, Case{1, 130, 130, 64, 64}}) {
    const TensorF q = ref::random_tensor({c.H, c.Lq, c.d}, 11, -2, 2);
    const TensorF k = ref::random_tensor({c.H, c.Lk, c.d}, 12, -2, 2);
    const TensorF v = ref::random_tensor({c.H, c.Lk, c.dv}, 13);
    for (const Mask& m : Masks()) {
      AttentionOptions o;
      o.mask = m;
      ExpectAttentionMatches(q, k, v, o,
                             "H=" + std::to_string(c.H) + " Lq=" + std::to_string(c.Lq) +
                                 " Lk=" + std::to_string(c.Lk) + " mask " +
                                 std::to_string(int(m.kind)) + ":" + std::to_string(m.window));
    }
  }
}

TEST(FastAttention, AppliesPaddingBiasAndScale) {
  const std::size_t H = 2, Lq = 11, Lk = 10, d = 8, dv = 6;
  const auto [q, k, v] = ref::random_attention_inputs(H, Lq, Lk, d, dv, 21);
  TensorF bias = ref::random_tensor({H, Lq, Lk}, 24, -3, 3);
  bias.data[5] = -std::numeric_limits<float>::infinity();  // a −∞ bias hides one key
  const TensorF shared_bias = ref::random_tensor({Lq, Lk}, 25, -3, 3);

  for (const Mask& m : Masks()) {
    AttentionOptions o;
    o.mask = m;
    o.key_padding = {0, 1, 0, 0, 1, 0, 0, 0, 0, 1};
    o.bias = &bias;
    o.scale = 0.3;
    ExpectAttentionMatches(q, k, v, o,
                           "padding + per-head bias, mask " + std::to_string(int(m.kind)));
    o.bias = &shared_bias;
    o.scale.reset();
    ExpectAttentionMatches(q, k, v, o, "padding + shared bias");
  }
}

TEST(FastAttention, FullyHiddenRowsAreZeroNotNaN) {
  const TensorF q = ref::random_tensor({3, 4}, 31);
  const TensorF k = ref::random_tensor({3, 4}, 32);
  const TensorF v = ref::random_tensor({3, 2}, 33);
  AttentionOptions o;
  o.mask = Mask{MaskKind::kCausal, 0};
  o.key_padding = {1, 0, 0};  // query 0 sees only key 0, which is padding
  const poslab::AttentionResult got = poslab::fast::attention(q, k, v, o);
  ExpectAttentionMatches(q, k, v, o, "fully hidden first row");
  for (std::size_t c = 0; c < 2; ++c) EXPECT_EQ(got.output.data[c], 0.0f);
  for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(got.weights.data[j], 0.0f);
}

TEST(FastAttention, OmitsWeightsWhenNotAsked) {
  const TensorF x = ref::random_tensor({2, 6, 4}, 41);
  AttentionOptions o;
  o.return_weights = false;
  const poslab::AttentionResult got = poslab::fast::attention(x, x, x, o);
  EXPECT_TRUE(got.weights.data.empty());
  EXPECT_ALLCLOSE(got.output, poslab::attention(x, x, x, o).output, ref::kTight);
}

TEST(FastAttention, HugeScoresFallBackToTheReference) {
  // |q|·|k|·d near float32's limit: the fast path must not produce ∞ − ∞.
  TensorF q = ref::random_tensor({4, 2}, 51);
  for (float& x : q.data) x *= 1e17f;
  const TensorF k = ref::random_tensor({4, 2}, 52);
  TensorF k_big = k;
  for (float& x : k_big.data) x *= 1e17f;
  const TensorF v = ref::random_tensor({4, 3}, 53);
  AttentionOptions o;
  // The fast path hands these to the reference, so comparing the two would prove nothing:
  // compare with the naive double loop instead (one-hot rows at this scale).
  const poslab::AttentionResult got = poslab::fast::attention(q, k_big, v, o);
  const ref::AttentionOut want = ref::attention(q, k_big, v, {}, {}, nullptr, std::nullopt);
  EXPECT_ALLCLOSE(got.output, want.output, ref::kAcceptance);
  EXPECT_ALLCLOSE(got.weights, want.weights, ref::kAcceptance);
  EXPECT_TRUE(ref::AllFinite(got.output));
  // Past it, both refuse with the same message.
  for (float& x : k_big.data) x *= 1e6f;
  ExpectSameError([&] { poslab::attention(q, k_big, v, o); },
                  [&] { poslab::fast::attention(q, k_big, v, o); });
}

TEST(FastAttention, RejectsWhatTheReferenceRejects) {
  const TensorF q = ref::random_tensor({2, 5, 4}, 61);
  const TensorF k = ref::random_tensor({2, 6, 4}, 62);
  const TensorF v = ref::random_tensor({2, 6, 3}, 63);
  const TensorF wrong_v = ref::random_tensor({2, 5, 3}, 64);
  TensorF nan_q = q;
  nan_q.data[3] = std::numeric_limits<float>::quiet_NaN();
  ExpectSameError([&] { poslab::attention(q, k, wrong_v); },
                  [&] { poslab::fast::attention(q, k, wrong_v); });
  ExpectSameError([&] { poslab::attention(nan_q, k, v); },
                  [&] { poslab::fast::attention(nan_q, k, v); });
  AttentionOptions short_padding;
  short_padding.key_padding = {0, 1};
  ExpectSameError([&] { poslab::attention(q, k, v, short_padding); },
                  [&] { poslab::fast::attention(q, k, v, short_padding); });
}

}  // namespace

namespace {

// The vectorised GELUs against formulas.hpp in double, at kTight over a dense grid (lengths
// that leave a partial vector), including the tails where tanh and erf saturate.
TEST(FastGelu, MatchesTheDoubleFormulas) {
  std::vector<float> grid;
  for (int i = -24000; i <= 24000; ++i) grid.push_back(static_cast<float>(i) * 5e-4f);
  grid.push_back(-60.0f);
  grid.push_back(60.0f);
  for (const bool erf_form : {false, true}) {
    std::vector<float> x = grid;
    if (erf_form) {
      poslab::fast::gelu_erf(x.data(), x.size());
    } else {
      poslab::fast::gelu_tanh(x.data(), x.size());
    }
    int failures = 0;
    for (std::size_t i = 0; i < grid.size(); ++i) {
      const double want =
          erf_form ? poslab::formulas::gelu_erf(grid[i]) : poslab::formulas::gelu_tanh(grid[i]);
      if (std::abs(x[i] - want) > 1e-6 + 1e-6 * std::abs(want) && ++failures <= 5) {
        ADD_FAILURE() << (erf_form ? "erf" : "tanh") << " gelu(" << grid[i] << ") = " << x[i]
                      << ", want " << want;
      }
    }
    EXPECT_EQ(failures, 0);
  }
}

}  // namespace

namespace {

// SiLU (the SwiGLU gate) against x / (1 + e^(−x)) in double, at the GELUs' tolerance over the
// same grid, and far into both tails, where e^(−x) overflows a float or vanishes.
TEST(FastSilu, MatchesTheDoubleFormula) {
  std::vector<float> grid;
  for (int i = -24000; i <= 24000; ++i) grid.push_back(static_cast<float>(i) * 5e-4f);
  for (const float tail :
       {-3e38f, -1e30f, -200.0f, -104.0f, -89.0f, -88.0f, 88.0f, 104.0f, 200.0f, 3e38f}) {
    grid.push_back(tail);
  }
  std::vector<float> x = grid;
  poslab::fast::silu(x.data(), x.size());
  int failures = 0;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const double g = grid[i], want = g / (1.0 + std::exp(-g));
    if (!(std::abs(x[i] - want) <= 1e-6 + 1e-6 * std::abs(want)) && ++failures <= 5) {
      ADD_FAILURE() << "silu(" << grid[i] << ") = " << x[i] << ", want " << want;
    }
  }
  EXPECT_EQ(failures, 0);
}

// The finite scan finds the first NaN or ±inf wherever it sits: in a whole block of 64, in the
// tail after the blocks, or nowhere; the largest finite float and subnormals pass.
TEST(FiniteScan, FindsTheFirstNonFiniteElement) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x(200, 1.0f);
  x[3] = std::numeric_limits<float>::max();
  x[4] = -std::numeric_limits<float>::max();
  x[5] = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(poslab::first_non_finite(x.data(), x.size()), x.size());
  for (const std::size_t at : {0u, 63u, 64u, 130u, 191u, 192u, 199u}) {
    for (const float bad : {inf, -inf, nan}) {
      std::vector<float> y = x;
      y[at] = bad;
      y[199] = at < 199 ? nan : y[199];  // a later one does not hide the first
      EXPECT_EQ(poslab::first_non_finite(y.data(), y.size()), at) << "at " << at;
    }
  }
  EXPECT_EQ(poslab::first_non_finite(x.data(), 0), 0u);
}

}  // namespace
