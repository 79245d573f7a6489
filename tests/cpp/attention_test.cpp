// Scaled dot-product attention with masks, key padding and biases, against a naive double
// reference (three nested loops and a stable softmax).
#include "poslab/layers/attention.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "reference.hpp"

namespace {

using poslab::AttentionOptions;
using poslab::Error;
using poslab::Mask;
using poslab::MaskKind;

constexpr std::size_t H = 2, Lq = 5, Lk = 7, d = 4, dv = 3;

struct Inputs {
  poslab::TensorF q = ref::random_tensor({H, Lq, d}, 1, -2, 2);
  poslab::TensorF k = ref::random_tensor({H, Lk, d}, 2, -2, 2);
  poslab::TensorF v = ref::random_tensor({H, Lk, dv}, 3);
};

ref::MaskSpec Spec(const Mask& m) {
  return {m.kind == MaskKind::kNone ? 0 : m.kind == MaskKind::kCausal ? 1 : 2, m.window, m.offset};
}

std::vector<Mask> AllMasks() {
  return {Mask{MaskKind::kNone, 0},          Mask{MaskKind::kCausal, 0},
          Mask{MaskKind::kSlidingWindow, 1}, Mask{MaskKind::kSlidingWindow, 2},
          Mask{MaskKind::kSlidingWindow, 3}, Mask{MaskKind::kSlidingWindow, 100}};
}

std::string Describe(const Mask& m) {
  if (m.kind == MaskKind::kNone) return "none";
  if (m.kind == MaskKind::kCausal) return "causal";
  return "window:" + std::to_string(m.window);
}

// Runs the core and the reference on the same inputs and compares output and weights.
void ExpectMatchesReference(const poslab::TensorF& q, const poslab::TensorF& k,
                            const poslab::TensorF& v, const AttentionOptions& o,
                            const std::string& what) {
  const poslab::AttentionResult got = poslab::attention(q, k, v, o);
  const ref::AttentionOut want =
      ref::attention(q, k, v, Spec(o.mask), o.key_padding, o.bias, o.scale);
  EXPECT_ALLCLOSE(got.output, want.output, ref::kAcceptance) << what;
  EXPECT_ALLCLOSE(got.weights, want.weights, ref::kAcceptance) << what;
  EXPECT_TRUE(ref::AllFinite(got.output)) << what;
}

TEST(Attention, MatchesReferenceForEveryMask) {
  const Inputs in;
  for (const Mask& m : AllMasks()) {
    AttentionOptions o;
    o.mask = m;
    ExpectMatchesReference(in.q, in.k, in.v, o, Describe(m));
  }
}

TEST(Attention, MatchesReferenceWithKeyPadding) {
  const Inputs in;
  for (const Mask& m : AllMasks()) {
    AttentionOptions o;
    o.mask = m;
    o.key_padding = {0, 0, 1, 0, 0, 1, 1};
    ExpectMatchesReference(in.q, in.k, in.v, o, Describe(m) + " + padding");
  }
}

// Both bias shapes the core takes: per head (H, Lq, Lk) and shared by the heads (Lq, Lk).
TEST(Attention, MatchesReferenceWithPerHeadAndSharedBias) {
  const Inputs in;
  struct BiasCase {
    poslab::Shape shape;
    std::uint64_t seed;
    const char* label;
  };
  for (const BiasCase& c :
       {BiasCase{{H, Lq, Lk}, 4, "(H,Lq,Lk)"}, BiasCase{{Lq, Lk}, 5, "(Lq,Lk)"}}) {
    const poslab::TensorF bias = ref::random_tensor(c.shape, c.seed, -3, 3);
    for (const Mask& m : AllMasks()) {
      AttentionOptions o;
      o.mask = m;
      o.bias = &bias;
      ExpectMatchesReference(in.q, in.k, in.v, o, Describe(m) + " + bias " + c.label);
    }
  }
}

TEST(Attention, MatchesReferenceWithCustomScale) {
  const Inputs in;
  for (const double scale : {1.0, 0.1, 3.0}) {
    AttentionOptions o;
    o.mask = Mask{MaskKind::kCausal, 0};
    o.scale = scale;
    ExpectMatchesReference(in.q, in.k, in.v, o, "scale " + std::to_string(scale));
  }
}

TEST(Attention, DefaultScaleIsOneOverSqrtHeadDim) {
  const Inputs in;
  AttentionOptions explicit_scale;
  explicit_scale.scale = 1.0 / std::sqrt(double(d));
  EXPECT_ALLCLOSE(poslab::attention(in.q, in.k, in.v).output,
                  poslab::attention(in.q, in.k, in.v, explicit_scale).output, ref::kTight);
  AttentionOptions other;
  other.scale = 1.0 / double(d);
  EXPECT_FALSE(ref::AllClose(poslab::attention(in.q, in.k, in.v).output,
                             poslab::attention(in.q, in.k, in.v, other).output, ref::kTight));
}

TEST(Attention, MatchesReferenceWithEverythingTogether) {
  const Inputs in;
  const poslab::TensorF bias = ref::random_tensor({H, Lq, Lk}, 6, -1, 1);
  AttentionOptions o;
  o.mask = Mask{MaskKind::kSlidingWindow, 3};
  o.key_padding = {0, 1, 0, 0, 0, 0, 1};
  o.bias = &bias;
  o.scale = 0.7;
  ExpectMatchesReference(in.q, in.k, in.v, o, "window:3 + padding + bias + scale");
}

TEST(Attention, MatchesReferenceAcrossRowBlocks) {
  // Long enough that a blocked implementation crosses several blocks of query rows, with
  // Lq > Lk and Lq < Lk (top-left aligned masks).
  for (const auto& [lq, lk] :
       std::vector<std::pair<std::size_t, std::size_t>>{{300, 290}, {260, 400}, {129, 129}}) {
    const poslab::TensorF q = ref::random_tensor({1, lq, 8}, 20, -2, 2);
    const poslab::TensorF k = ref::random_tensor({1, lk, 8}, 21, -2, 2);
    const poslab::TensorF v = ref::random_tensor({1, lk, 3}, 22);
    std::vector<std::uint8_t> padding(lk, 0);
    padding[5] = padding[lk - 1] = padding[lk / 2] = 1;
    for (const Mask& m :
         {Mask{MaskKind::kNone, 0}, Mask{MaskKind::kCausal, 0}, Mask{MaskKind::kSlidingWindow, 1},
          Mask{MaskKind::kSlidingWindow, 7}, Mask{MaskKind::kSlidingWindow, 130},
          Mask{MaskKind::kSlidingWindow, 200}}) {
      for (const bool pad : {false, true}) {
        AttentionOptions o;
        o.mask = m;
        if (pad) o.key_padding = padding;
        ExpectMatchesReference(q, k, v, o,
                               Describe(m) + (pad ? " + padding" : "") +
                                   " Lq=" + std::to_string(lq) + " Lk=" + std::to_string(lk));
      }
    }
  }
}

TEST(Attention, SoftmaxRowsSumToOne) {
  const Inputs in;
  for (const Mask& m : AllMasks()) {
    AttentionOptions o;
    o.mask = m;
    const poslab::TensorF w = poslab::attention(in.q, in.k, in.v, o).weights;
    ASSERT_EQ(w.shape, (poslab::Shape{H, Lq, Lk}));
    for (std::size_t r = 0; r < H * Lq; ++r) {
      double sum = 0;
      for (std::size_t j = 0; j < Lk; ++j) {
        EXPECT_GE(w.data[r * Lk + j], 0.0f);
        sum += w.data[r * Lk + j];
      }
      EXPECT_NEAR(sum, 1.0, 1e-6) << Describe(m) << " row " << r;
    }
  }
}

TEST(Attention, CausalWeightsAreZeroAboveTheDiagonal) {
  // Lq ≠ Lk: queries and keys are top-left aligned, so key j is hidden from query i when j > i.
  const Inputs in;
  AttentionOptions o;
  o.mask = Mask{MaskKind::kCausal, 0};
  const poslab::TensorF w = poslab::attention(in.q, in.k, in.v, o).weights;
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t i = 0; i < Lq; ++i)
      for (std::size_t j = 0; j < Lk; ++j) {
        const float x = w.data[(h * Lq + i) * Lk + j];
        if (j > i) {
          EXPECT_EQ(x, 0.0f) << h << "," << i << "," << j;
        } else {
          EXPECT_GT(x, 0.0f) << h << "," << i << "," << j;
        }
      }
}

TEST(Attention, SlidingWindowKeepsExactlyTheLastWKeys) {
  const std::size_t L = 9;
  const poslab::TensorF q = ref::random_tensor({L, 4}, 7), k = ref::random_tensor({L, 4}, 8),
                        v = ref::random_tensor({L, 2}, 9);
  for (const long long W : {1LL, 2LL, 3LL, 5LL, 9LL, 20LL}) {
    AttentionOptions o;
    o.mask = Mask{MaskKind::kSlidingWindow, W};
    const poslab::TensorF w = poslab::attention(q, k, v, o).weights;
    for (std::size_t i = 0; i < L; ++i)
      for (std::size_t j = 0; j < L; ++j) {
        const bool kept = j <= i && static_cast<long long>(i - j) < W;
        EXPECT_EQ(w.data[i * L + j] > 0.0f, kept) << "W=" << W << " i=" << i << " j=" << j;
      }
  }
  // W = 1 attends only to itself: the output is v_i.
  AttentionOptions self;
  self.mask = Mask{MaskKind::kSlidingWindow, 1};
  EXPECT_ALLCLOSE(poslab::attention(q, k, v, self).output, v, ref::kTight);
}

TEST(Attention, FullyMaskedRowIsZero) {
  const Inputs in;
  // Every key padded: all rows hidden.
  AttentionOptions all_padded;
  all_padded.key_padding.assign(Lk, 1);
  const poslab::AttentionResult r = poslab::attention(in.q, in.k, in.v, all_padded);
  ASSERT_EQ(r.output.shape, (poslab::Shape{H, Lq, dv}));
  for (float x : r.output.data) EXPECT_EQ(x, 0.0f);
  for (float x : r.weights.data) EXPECT_EQ(x, 0.0f);
}

TEST(Attention, FullyMaskedRowByCausalAndPaddingIsZero) {
  // Causal leaves query 0 only key 0; padding key 0 hides it: row 0 is empty, others are not.
  const Inputs in;
  AttentionOptions o;
  o.mask = Mask{MaskKind::kCausal, 0};
  o.key_padding = {1, 0, 0, 0, 0, 0, 0};
  const poslab::AttentionResult r = poslab::attention(in.q, in.k, in.v, o);
  for (std::size_t h = 0; h < H; ++h) {
    for (std::size_t j = 0; j < Lk; ++j) EXPECT_EQ(r.weights.data[(h * Lq + 0) * Lk + j], 0.0f);
    for (std::size_t c = 0; c < dv; ++c) EXPECT_EQ(r.output.data[(h * Lq + 0) * dv + c], 0.0f);
  }
  ExpectMatchesReference(in.q, in.k, in.v, o, "causal + padding of key 0");
}

TEST(Attention, MinusInfinityBiasRowIsZero) {
  const Inputs in;
  poslab::TensorF bias = ref::random_tensor({H, Lq, Lk}, 10);
  const float inf = std::numeric_limits<float>::infinity();
  for (std::size_t j = 0; j < Lk; ++j) bias.data[(1 * Lq + 2) * Lk + j] = -inf;  // head 1, row 2
  bias.data[(0 * Lq + 3) * Lk + 4] = -inf;  // one −∞ in a row that keeps other keys
  AttentionOptions o;
  o.bias = &bias;
  const poslab::AttentionResult r = poslab::attention(in.q, in.k, in.v, o);
  EXPECT_TRUE(ref::AllFinite(r.output));
  EXPECT_TRUE(ref::AllFinite(r.weights));
  for (std::size_t j = 0; j < Lk; ++j) EXPECT_EQ(r.weights.data[(1 * Lq + 2) * Lk + j], 0.0f);
  for (std::size_t c = 0; c < dv; ++c) EXPECT_EQ(r.output.data[(1 * Lq + 2) * dv + c], 0.0f);
  EXPECT_EQ(r.weights.data[(0 * Lq + 3) * Lk + 4], 0.0f);
  ExpectMatchesReference(in.q, in.k, in.v, o, "−inf bias");
}

TEST(Attention, HugeScoresStayFinite) {
  const Inputs in;
  for (const double scale : {1e30, 1e36}) {
    AttentionOptions o;
    o.scale = scale;
    o.mask = Mask{MaskKind::kCausal, 0};
    const poslab::AttentionResult r = poslab::attention(in.q, in.k, in.v, o);
    EXPECT_TRUE(ref::AllFinite(r.output)) << scale;
    EXPECT_TRUE(ref::AllFinite(r.weights)) << scale;
    ExpectMatchesReference(in.q, in.k, in.v, o, "scale " + std::to_string(scale));
  }
  // Huge finite biases too.
  poslab::TensorF bias = ref::random_tensor({Lq, Lk}, 11, -3e38, 3e38);
  AttentionOptions o;
  o.bias = &bias;
  const poslab::AttentionResult r = poslab::attention(in.q, in.k, in.v, o);
  EXPECT_TRUE(ref::AllFinite(r.output));
  ExpectMatchesReference(in.q, in.k, in.v, o, "bias ±3e38");
}

TEST(Attention, ScoresBeyondFloat32AreRefusedWithWhereTheyAre) {
  // Once all-NaN weights with no error: the scaled score itself is past float32's range.
  const Inputs in;
  for (const double scale : {1e300, -1e308}) {
    AttentionOptions o;
    o.scale = scale;
    try {
      poslab::attention(in.q, in.k, in.v, o);
      FAIL() << "scale " << scale << " was accepted";
    } catch (const poslab::Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("attention scores overflow float32"), std::string::npos) << message;
      EXPECT_NE(message.find("at head 0, query 0, key 0"), std::string::npos) << message;
    }
  }
  // A hidden key's score is never computed into the result, so it cannot overflow it.
  poslab::TensorF q({2, 1}, std::vector<float>{1.0f, 3e38f});
  poslab::TensorF k({2, 1}, std::vector<float>{1.0f, 3e38f});
  AttentionOptions causal;
  causal.mask = Mask{MaskKind::kCausal, 0};
  EXPECT_THROW(poslab::attention(q, k, k, causal), poslab::Error);  // query 1 sees key 1
  poslab::TensorF q0({1, 1}, std::vector<float>{1.0f});
  EXPECT_NO_THROW(poslab::attention(q0, k, k, causal));  // query 0 sees key 0 only
}

TEST(Attention, TwoDimensionalInputsAreOneHead) {
  const poslab::TensorF q = ref::random_tensor({Lq, d}, 12), k = ref::random_tensor({Lk, d}, 13),
                        v = ref::random_tensor({Lk, dv}, 14);
  AttentionOptions o;
  o.mask = Mask{MaskKind::kCausal, 0};
  const poslab::AttentionResult two = poslab::attention(q, k, v, o);
  EXPECT_EQ(two.output.shape, (poslab::Shape{Lq, dv}));
  EXPECT_EQ(two.weights.shape, (poslab::Shape{Lq, Lk}));
  ExpectMatchesReference(q, k, v, o, "2-D");
  const poslab::TensorF q3(poslab::Shape{1, Lq, d}, q.data), k3(poslab::Shape{1, Lk, d}, k.data),
      v3(poslab::Shape{1, Lk, dv}, v.data);
  const poslab::AttentionResult three = poslab::attention(q3, k3, v3, o);
  EXPECT_EQ(two.output.data, three.output.data);
  EXPECT_EQ(two.weights.data, three.weights.data);
}

TEST(Attention, WeightsCanBeSkipped) {
  const Inputs in;
  AttentionOptions o;
  o.return_weights = false;
  const poslab::AttentionResult r = poslab::attention(in.q, in.k, in.v, o);
  EXPECT_EQ(r.weights.size(), 0u);
  EXPECT_ALLCLOSE(r.output, poslab::attention(in.q, in.k, in.v).output, ref::kTight);
}

TEST(Attention, RejectsShapeMismatches) {
  const Inputs in;
  const auto q_bad_d = ref::random_tensor({H, Lq, d + 1}, 1);
  const auto v_bad_lk = ref::random_tensor({H, Lk + 1, dv}, 1);
  const auto k_bad_h = ref::random_tensor({H + 1, Lk, d}, 1);
  const auto v_bad_h = ref::random_tensor({H + 1, Lk, dv}, 1);
  EXPECT_THROW(poslab::attention(q_bad_d, in.k, in.v), Error);
  EXPECT_THROW(poslab::attention(in.q, in.k, v_bad_lk), Error);
  EXPECT_THROW(poslab::attention(in.q, k_bad_h, in.v), Error);
  EXPECT_THROW(poslab::attention(in.q, in.k, v_bad_h), Error);
  EXPECT_THROW(poslab::attention(ref::random_tensor({d}, 1), ref::random_tensor({d}, 2),
                                 ref::random_tensor({d}, 3)),
               Error);
  EXPECT_THROW(
      poslab::attention(ref::random_tensor({1, H, Lq, d}, 1), ref::random_tensor({1, H, Lk, d}, 2),
                        ref::random_tensor({1, H, Lk, dv}, 3)),
      Error);
}

TEST(Attention, RejectsBadPaddingAndBiasShapes) {
  const Inputs in;
  AttentionOptions padding;
  padding.key_padding = {0, 0, 1};
  EXPECT_THROW(poslab::attention(in.q, in.k, in.v, padding), Error);
  for (const poslab::Shape& s :
       {poslab::Shape{H, Lk, Lq}, poslab::Shape{Lq, Lk + 1}, poslab::Shape{H + 1, Lq, Lk},
        poslab::Shape{Lk}, poslab::Shape{1, H, Lq, Lk}}) {
    const poslab::TensorF bias = ref::random_tensor(s, 1);
    AttentionOptions o;
    o.bias = &bias;
    EXPECT_THROW(poslab::attention(in.q, in.k, in.v, o), Error) << ref::shape_str(s);
  }
}

TEST(Attention, RejectsBadWindowAndScale) {
  const Inputs in;
  for (const long long W : {0LL, -1LL}) {
    AttentionOptions o;
    o.mask = Mask{MaskKind::kSlidingWindow, W};
    EXPECT_THROW(poslab::attention(in.q, in.k, in.v, o), Error) << W;
  }
  for (const double scale : {ref::kNaN, ref::kInf}) {
    AttentionOptions o;
    o.scale = scale;
    EXPECT_THROW(poslab::attention(in.q, in.k, in.v, o), Error) << scale;
  }
}

TEST(Attention, RejectsNonFiniteInputs) {
  const Inputs in;
  poslab::TensorF q = in.q;
  q.data[3] = static_cast<float>(ref::kNaN);
  EXPECT_THROW(poslab::attention(q, in.k, in.v), Error);
  poslab::TensorF v = in.v;
  v.data[0] = static_cast<float>(ref::kInf);
  EXPECT_THROW(poslab::attention(in.q, in.k, v), Error);
  // A +∞ or NaN bias is garbage; only −∞ (hide this key) is meaningful.
  for (const double bad : {ref::kInf, ref::kNaN}) {
    poslab::TensorF bias = ref::random_tensor({Lq, Lk}, 1);
    bias.data[4] = static_cast<float>(bad);
    AttentionOptions o;
    o.bias = &bias;
    EXPECT_THROW(poslab::attention(in.q, in.k, in.v, o), Error) << bad;
  }
}

TEST(Attention, ParseMask) {
  EXPECT_EQ(poslab::parse_mask("none").kind, MaskKind::kNone);
  EXPECT_EQ(poslab::parse_mask("causal").kind, MaskKind::kCausal);
  const Mask m = poslab::parse_mask("window:3");
  EXPECT_EQ(m.kind, MaskKind::kSlidingWindow);
  EXPECT_EQ(m.window, 3);
  EXPECT_EQ(poslab::parse_mask("window:128").window, 128);
  for (const char* bad : {"window:0", "window:-1", "window:x", "foo", "window:", "window:3x",
                          "window:1.5", "", "causal:3"}) {
    EXPECT_THROW(poslab::parse_mask(bad), Error) << '"' << bad << '"';
  }
}

TEST(Attention, MaskHidesExactlyTheDocumentedKeys) {
  const Mask none{MaskKind::kNone, 0}, causal{MaskKind::kCausal, 0},
      window{MaskKind::kSlidingWindow, 2};
  EXPECT_FALSE(none.hides(0, 5));
  EXPECT_TRUE(causal.hides(0, 1));
  EXPECT_FALSE(causal.hides(1, 0));
  EXPECT_FALSE(causal.hides(100, 0));
  EXPECT_FALSE(window.hides(5, 4));
  EXPECT_FALSE(window.hides(5, 5));
  EXPECT_TRUE(window.hides(5, 3));
  EXPECT_TRUE(window.hides(5, 6));
}

}  // namespace
