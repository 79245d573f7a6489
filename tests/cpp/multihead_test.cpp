// Multi-head self-attention: full-width projections split into heads, optional RoPE and
// position biases, merged and projected out — against a naive double reference.
#include "poslab/layers/multihead.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>

#include "poslab/positions/alibi.hpp"
#include "reference.hpp"

// Named, so that a unity build (cmake/TestBuild.cmake) keeps its helpers apart from
// another file's of the same name.
namespace multihead_test {
namespace {

using poslab::Error;
using poslab::Mask;
using poslab::MaskKind;
using poslab::MultiHeadOptions;
using poslab::MultiHeadWeights;
using poslab::PositionBias;

constexpr std::size_t L = 6, D = 8;

// Projections scaled like 1/√D, with biases, from the tests' own generator.
MultiHeadWeights Weights(std::uint64_t seed, bool with_bias = true) {
  const double s = 1.0 / std::sqrt(double(D));
  MultiHeadWeights w;
  w.wq = ref::random_tensor({D, D}, seed + 1, -2 * s, 2 * s);
  w.wk = ref::random_tensor({D, D}, seed + 2, -2 * s, 2 * s);
  w.wv = ref::random_tensor({D, D}, seed + 3, -2 * s, 2 * s);
  w.wo = ref::random_tensor({D, D}, seed + 4, -2 * s, 2 * s);
  if (with_bias) {
    w.bq = ref::random_tensor({D}, seed + 5, -0.5, 0.5);
    w.bk = ref::random_tensor({D}, seed + 6, -0.5, 0.5);
    w.bv = ref::random_tensor({D}, seed + 7, -0.5, 0.5);
    w.bo = ref::random_tensor({D}, seed + 8, -0.5, 0.5);
  }
  return w;
}

// Four heads with ALiBi's bias under `mask`: the setting every ALiBi test here starts from.
MultiHeadOptions AlibiOptions(const Mask& mask) {
  MultiHeadOptions o;
  o.num_heads = 4;
  o.mask = mask;
  o.bias = poslab::score_bias_defaults(PositionBias::kAlibi);
  return o;
}

ref::MaskSpec Spec(const Mask& m) {
  return {m.kind == MaskKind::kNone ? 0 : m.kind == MaskKind::kCausal ? 1 : 2, m.window};
}

void ExpectMatchesReference(const poslab::TensorF& x, const MultiHeadWeights& w,
                            const MultiHeadOptions& o, const poslab::TensorF* bias,
                            const std::string& what) {
  const poslab::MultiHeadResult got = poslab::multihead_attention(x, w, o);
  const ref::MultiHeadOut want = ref::multihead(x, w, std::size_t(o.num_heads), Spec(o.mask),
                                                o.key_padding, o.rope, bias, o.scale);
  EXPECT_ALLCLOSE(got.q, want.q, ref::kAcceptance) << what << " (q)";
  EXPECT_ALLCLOSE(got.k, want.k, ref::kAcceptance) << what << " (k)";
  EXPECT_ALLCLOSE(got.v, want.v, ref::kAcceptance) << what << " (v)";
  EXPECT_ALLCLOSE(got.weights, want.weights, ref::kAcceptance) << what << " (weights)";
  EXPECT_ALLCLOSE(got.output, want.output, ref::kAcceptance) << what << " (output)";
}

TEST(MultiHead, MatchesReferenceWithoutPositions) {
  const poslab::TensorF x = ref::random_tensor({L, D}, 100);
  for (const long long H : {1LL, 2LL, 4LL, 8LL}) {
    MultiHeadOptions o;
    o.num_heads = H;
    ExpectMatchesReference(x, Weights(1), o, nullptr, "H=" + std::to_string(H));
  }
}

TEST(MultiHead, ProjectsTheFullWidthBeforeSplitting) {
  // Head 1 must see columns d..2d of x·Wq, which mixes every input column: zeroing the
  // second half of x changes head 0's queries too.
  MultiHeadOptions o;
  o.num_heads = 2;
  const MultiHeadWeights w = Weights(2, false);
  poslab::TensorF x = ref::random_tensor({L, D}, 101);
  const poslab::TensorF q_before = poslab::multihead_attention(x, w, o).q;
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t c = D / 2; c < D; ++c) x.data[l * D + c] = 0.0f;
  const poslab::TensorF q_after = poslab::multihead_attention(x, w, o).q;
  bool head0_changed = false;
  for (std::size_t i = 0; i < L * D / 2; ++i) head0_changed |= q_before.data[i] != q_after.data[i];
  EXPECT_TRUE(head0_changed);
}

TEST(MultiHead, MatchesReferenceWithRopeAndCausalMask) {
  const poslab::TensorF x = ref::random_tensor({L, D}, 102);
  for (const poslab::RopeStyle style : {poslab::RopeStyle::kNeox, poslab::RopeStyle::kGptj}) {
    MultiHeadOptions o;
    o.num_heads = 2;
    o.mask = Mask{MaskKind::kCausal, 0};
    poslab::RopeOptions rope;
    rope.style = style;
    o.rope = rope;
    ExpectMatchesReference(x, Weights(3), o, nullptr, "rope causal");
  }
}

TEST(MultiHead, MatchesReferenceWithScaledRope) {
  const poslab::TensorF x = ref::random_tensor({L, D}, 103);
  MultiHeadOptions o;
  o.num_heads = 2;
  poslab::RopeOptions rope;
  rope.scaling = poslab::RopeScaling::kYarn;
  rope.factor = 4.0;
  rope.original_length = 4;
  o.rope = rope;
  ExpectMatchesReference(x, Weights(4), o, nullptr, "yarn");
}

TEST(MultiHead, MatchesReferenceWithXposAndCausalMask) {
  const poslab::TensorF x = ref::random_tensor({L, D}, 109);
  for (const double scale_base : {512.0, 2.0}) {  // torchscale's, and one that decays fast
    MultiHeadOptions o;
    o.num_heads = 2;
    o.mask = Mask{MaskKind::kCausal, 0};
    o.rope = poslab::rotation_defaults(poslab::PositionMethod::kXpos);
    o.rope->scale_base = scale_base;
    ExpectMatchesReference(x, Weights(5), o, nullptr, "xpos causal");
  }
}

TEST(MultiHead, MatchesReferenceWithAlibiAndCausalMask) {
  const poslab::TensorF x = ref::random_tensor({L, D}, 104);
  const MultiHeadOptions o = AlibiOptions(Mask{MaskKind::kCausal, 0});
  poslab::TensorF alibi(poslab::Shape{4, L, L});
  const ref::Tensor want_bias = ref::alibi_bias(4, L, L);
  for (std::size_t i = 0; i < alibi.size(); ++i) alibi.data[i] = float(want_bias[i]);
  ExpectMatchesReference(x, Weights(5), o, &alibi, "alibi causal");
  const poslab::MultiHeadResult r = poslab::multihead_attention(x, Weights(5), o);
  EXPECT_ALLCLOSE(r.bias, want_bias, ref::kTight);
}

// With a mask offset the ALiBi bias is taken at query positions i + offset, like the mask.
TEST(MultiHead, AlibiFollowsTheMaskOffset) {
  const poslab::TensorF x = ref::random_tensor({L, D}, 107);
  const MultiHeadOptions o = AlibiOptions(Mask{MaskKind::kCausal, 0, 2});
  const ref::Tensor want_bias = ref::alibi_bias(4, L, L, 2);
  EXPECT_ALLCLOSE(poslab::multihead_attention(x, Weights(7), o).bias, want_bias, ref::kTight);
}

TEST(MultiHead, MatchesReferenceWithPaddingWindowAndScale) {
  const poslab::TensorF x = ref::random_tensor({L, D}, 105);
  MultiHeadOptions o;
  o.num_heads = 2;
  o.mask = Mask{MaskKind::kSlidingWindow, 2};
  o.key_padding = {0, 0, 1, 0, 0, 0};
  o.scale = 0.3;
  ExpectMatchesReference(x, Weights(6), o, nullptr, "window + padding + scale");
}

TEST(MultiHead, T5BiasIsAFunctionOfRelativePositionAndIsUsed) {
  const poslab::TensorF x = ref::random_tensor({L, D}, 106);
  MultiHeadOptions o;
  o.num_heads = 2;
  o.bias = poslab::score_bias_defaults(PositionBias::kT5);
  o.bias.options = {8, 16};
  o.bias.bidirectional = true;
  const poslab::MultiHeadResult r = poslab::multihead_attention(x, Weights(7), o);
  ASSERT_EQ(r.bias.shape, (poslab::Shape{2, L, L}));
  // Constant along each diagonal j − i (one bucket per relative position).
  for (std::size_t h = 0; h < 2; ++h)
    for (std::size_t i = 1; i < L; ++i)
      for (std::size_t j = 1; j < L; ++j)
        EXPECT_EQ(r.bias.data[(h * L + i) * L + j], r.bias.data[(h * L + i - 1) * L + j - 1]);
  ExpectMatchesReference(x, Weights(7), o, &r.bias, "t5");
}

TEST(MultiHead, WeightsRowsSumToOne) {
  const poslab::TensorF x = ref::random_tensor({L, D}, 107);
  const MultiHeadOptions o = AlibiOptions(Mask{MaskKind::kCausal, 0});
  const poslab::MultiHeadResult r = poslab::multihead_attention(x, Weights(8), o);
  ASSERT_EQ(r.weights.shape, (poslab::Shape{4, L, L}));
  ASSERT_EQ(r.output.shape, (poslab::Shape{L, D}));
  for (std::size_t row = 0; row < 4 * L; ++row) {
    double sum = 0;
    for (std::size_t j = 0; j < L; ++j) sum += r.weights.data[row * L + j];
    EXPECT_NEAR(sum, 1.0, 1e-6) << row;
  }
}

// heads (H, L, d) is what the output projection reads: output = concat_h(heads) · Wo + bo,
// recomputed here with loops. The scores are its softmax's input: softmax(scores) = weights.
TEST(MultiHead, HeadsAndScoresAreTheStagesOfTheOutput) {
  const poslab::TensorF x = ref::random_tensor({L, D}, 108);
  const MultiHeadOptions o = AlibiOptions(Mask{MaskKind::kSlidingWindow, 3});
  const MultiHeadWeights w = Weights(9);
  const poslab::MultiHeadResult r = poslab::multihead_attention(x, w, o);
  const std::size_t H = 4, d = D / H;
  ASSERT_EQ(r.heads.shape, (poslab::Shape{H, L, d}));
  for (std::size_t l = 0; l < L; ++l) {
    for (std::size_t c = 0; c < D; ++c) {
      double y = w.bo.data[c];
      for (std::size_t h = 0; h < H; ++h) {
        for (std::size_t e = 0; e < d; ++e) {
          y += double(r.heads.data[(h * L + l) * d + e]) * double(w.wo.data[(h * d + e) * D + c]);
        }
      }
      EXPECT_NEAR(r.output.data[l * D + c], y, 1e-4 * (1 + std::fabs(y))) << l << "," << c;
    }
  }
  for (std::size_t row = 0; row < H * L; ++row) {
    double z = 0;
    for (std::size_t j = 0; j < L; ++j) z += std::exp(double(r.scores.data[row * L + j]));
    for (std::size_t j = 0; j < L; ++j) {
      EXPECT_NEAR(r.weights.data[row * L + j], std::exp(double(r.scores.data[row * L + j])) / z,
                  1e-6)
          << row << "," << j;
    }
  }
}

TEST(MultiHead, RandomWeightsAreSeededWithVarianceOneOverD) {
  const MultiHeadWeights a = poslab::random_multihead_weights(64, 3);
  const MultiHeadWeights b = poslab::random_multihead_weights(64, 3);
  const MultiHeadWeights c = poslab::random_multihead_weights(64, 4);
  for (const poslab::TensorF* t : {&a.wq, &a.wk, &a.wv, &a.wo})
    EXPECT_EQ(t->shape, (poslab::Shape{64, 64}));
  EXPECT_EQ(a.wq.data, b.wq.data);
  EXPECT_EQ(a.wo.data, b.wo.data);
  EXPECT_NE(a.wq.data, c.wq.data);
  EXPECT_NE(a.wq.data, a.wk.data);  // the four projections are distinct draws
  EXPECT_EQ(a.bq.size() + a.bk.size() + a.bv.size() + a.bo.size(), 0u);
  double sum2 = 0;
  for (const poslab::TensorF* t : {&a.wq, &a.wk, &a.wv, &a.wo})
    for (float v : t->data) sum2 += double(v) * v;
  EXPECT_NEAR(sum2 / (4 * 64 * 64), 1.0 / 64, 0.05 / 64);  // 16 384 draws: σ ≈ 1.1%
}

TEST(MultiHead, RejectsWidthNotDivisibleByHeads) {
  const poslab::TensorF x = ref::random_tensor({L, D}, 108);
  for (const long long H : {3LL, 5LL, 16LL, 0LL, -2LL}) {
    MultiHeadOptions o;
    o.num_heads = H;
    EXPECT_THROW(poslab::multihead_attention(x, Weights(9), o), Error) << H;
  }
}

TEST(MultiHead, RejectsMismatchedWeights) {
  const poslab::TensorF x = ref::random_tensor({L, D}, 109);
  MultiHeadOptions o;
  o.num_heads = 2;
  MultiHeadWeights w = Weights(10);
  w.wk = ref::random_tensor({D, D + 2}, 1);
  EXPECT_THROW(poslab::multihead_attention(x, w, o), Error);
  w = Weights(10);
  w.wo = ref::random_tensor({D + 1, D}, 1);
  EXPECT_THROW(poslab::multihead_attention(x, w, o), Error);
  w = Weights(10);
  w.bv = ref::random_tensor({D - 1}, 1);
  EXPECT_THROW(poslab::multihead_attention(x, w, o), Error);
  EXPECT_THROW(poslab::multihead_attention(ref::random_tensor({L, D + 2}, 1), Weights(10), o),
               Error);
  EXPECT_THROW(poslab::multihead_attention(ref::random_tensor({1, L, D}, 1), Weights(10), o),
               Error);
  o.key_padding = {0, 1};
  EXPECT_THROW(poslab::multihead_attention(x, Weights(10), o), Error);
}

TEST(MultiHead, RejectsRopeWithOddHeadWidth) {
  // D = 6, H = 2 → d = 3: odd, cannot rotate pairs.
  const poslab::TensorF x = ref::random_tensor({4, 6}, 110);
  MultiHeadWeights w;
  w.wq = w.wk = w.wv = w.wo = ref::random_tensor({6, 6}, 1);
  MultiHeadOptions o;
  o.num_heads = 2;
  o.rope = poslab::RopeOptions{};
  EXPECT_THROW(poslab::multihead_attention(x, w, o), Error);
  o.rope = poslab::rotation_defaults(poslab::PositionMethod::kXpos);
  EXPECT_THROW(poslab::multihead_attention(x, w, o), Error);
}

}  // namespace
}  // namespace multihead_test
