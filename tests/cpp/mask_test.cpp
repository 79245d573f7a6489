// The one mask rule (poslab::MaskRule, mask.hpp) against a loop written from the definition
// (ref::MaskSpec), and the three users of the rule against each other: attention_mask (what the
// page draws), the reference attention and the SIMD fast path, for offsets, windows, padding
// and Lq != Lk. Also the pre-softmax scores attention hands back for display.
#include "poslab/layers/mask.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "poslab/fast/fast.hpp"
#include "poslab/layers/attention.hpp"
#include "reference.hpp"

// Named, so that a unity build (cmake/TestBuild.cmake) keeps its helpers apart from
// another file's of the same name.
namespace mask_test {
namespace {

using poslab::AttentionOptions;
using poslab::Mask;
using poslab::MaskKind;
using poslab::TensorF;

ref::MaskSpec Spec(const Mask& m) {
  return {m.kind == MaskKind::kNone ? 0 : m.kind == MaskKind::kCausal ? 1 : 2, m.window, m.offset};
}

std::string Describe(const Mask& m, long long Lq, long long Lk) {
  return poslab::format_mask(m) + " offset " + std::to_string(m.offset) + " Lq " +
         std::to_string(Lq) + " Lk " + std::to_string(Lk);
}

// Every kind, windows of 1, 2 and wider than the keys, offsets that push every query past
// every key, align the last query with the last key, or hide whole rows.
std::vector<Mask> MasksWithOffsets() {
  std::vector<Mask> out;
  for (long long offset : {0LL, 1LL, 3LL, -1LL, -4LL, 9LL, -20LL, 40LL}) {
    out.push_back({MaskKind::kNone, 0, offset});
    out.push_back({MaskKind::kCausal, 0, offset});
    for (long long W : {1LL, 2LL, 5LL, 100LL}) out.push_back({MaskKind::kSlidingWindow, W, offset});
  }
  return out;
}

std::vector<std::uint8_t> Padding(std::size_t Lk) {
  std::vector<std::uint8_t> p(Lk, 0);
  for (std::size_t j = 0; j < Lk; j += 3) p[j] = 1;  // keys 0, 3, 6, ...
  return p;
}

TEST(MaskRule, MatchesTheDefinitionWithOffsetsWindowsAndPadding) {
  for (const auto& [Lq, Lk] : {std::pair{6LL, 6LL}, std::pair{4LL, 9LL}, std::pair{9LL, 4LL},
                               std::pair{1LL, 7LL}, std::pair{7LL, 1LL}, std::pair{0LL, 3LL}}) {
    const std::vector<std::uint8_t> pad = Padding(std::size_t(Lk));
    for (const Mask& m : MasksWithOffsets()) {
      SCOPED_TRACE(Describe(m, Lq, Lk));
      const ref::MaskSpec spec = Spec(m);
      const poslab::Tensor<std::uint8_t> shown = poslab::attention_mask(Lq, Lk, m, pad);
      ASSERT_EQ(shown.shape, (poslab::Shape{std::size_t(Lq), std::size_t(Lk)}));
      for (long long i = 0; i < Lq; ++i) {
        const poslab::KeyRange<long long> keys = m.rule().keys(i, Lk);
        for (long long j = 0; j < Lk; ++j) {
          const bool want = spec.hides(i, j) || pad[std::size_t(j)];
          EXPECT_EQ(m.rule().hides(i, j, Lk, pad.data()), want) << i << "," << j;
          EXPECT_EQ(m.hides(i, j), spec.hides(i, j)) << i << "," << j;
          EXPECT_EQ(shown.data[std::size_t(i * Lk + j)], want ? 1 : 0) << i << "," << j;
          // The visible keys (before padding) are exactly the range the fast paths loop over.
          EXPECT_EQ(j >= keys.first && j < keys.last, !spec.hides(i, j)) << i << "," << j;
        }
      }
    }
  }
}

TEST(MaskRule, CausalHidesTheFutureOfEachQueryPosition) {
  // Hand-written: 2 queries after 3 cached keys (offset 3) see keys 0..3 and 0..4.
  const Mask m{MaskKind::kCausal, 0, 3};
  const poslab::Tensor<std::uint8_t> shown = poslab::attention_mask(2, 5, m);
  EXPECT_EQ(shown.data, (std::vector<std::uint8_t>{0, 0, 0, 0, 1, 0, 0, 0, 0, 0}));
  // A window of 2 with offset −1: query 0 sees nothing, query 1 key 0, query 2 keys 0 and 1.
  const poslab::Tensor<std::uint8_t> window =
      poslab::attention_mask(3, 3, Mask{MaskKind::kSlidingWindow, 2, -1});
  EXPECT_EQ(window.data, (std::vector<std::uint8_t>{1, 1, 1, 0, 1, 1, 0, 0, 1}));
}

TEST(MaskRule, RefusesBadOffsetsWindowsAndPaddingNamingTheField) {
  const auto field_of = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const poslab::Error& e) {
      return e.field();
    }
    return "(no error)";
  };
  EXPECT_EQ(field_of([] {
              poslab::attention_mask(2, 2, Mask{MaskKind::kCausal, 0, 1LL << 31});
            }),
            "offset");
  EXPECT_EQ(field_of([] {
              poslab::attention_mask(2, 2, Mask{MaskKind::kSlidingWindow, 0});
            }),
            "window");
  EXPECT_EQ(field_of([] { poslab::attention_mask(2, 3, Mask{}, {1, 0}); }), "keyPadding");
  EXPECT_EQ(field_of([] { poslab::attention_mask(-1, 3, Mask{}); }), "queries");
  EXPECT_EQ(field_of([] { poslab::attention_mask(1, -3, Mask{}); }), "keys");
  EXPECT_EQ(field_of([] { poslab::parse_mask("window:0"); }), "window");
  EXPECT_EQ(field_of([] { poslab::parse_mask("window"); }), "mask");
  EXPECT_EQ(field_of([] { poslab::parse_mask("sideways"); }), "mask");
}

TEST(MaskRule, FormatAndParseAreInverse) {
  for (const Mask& m : {Mask{MaskKind::kNone, 0}, Mask{MaskKind::kCausal, 0},
                        Mask{MaskKind::kSlidingWindow, 1}, Mask{MaskKind::kSlidingWindow, 4096}}) {
    const Mask back = poslab::parse_mask(poslab::format_mask(m));
    EXPECT_EQ(back.kind, m.kind);
    EXPECT_EQ(back.window, m.window);
  }
  EXPECT_EQ(poslab::format_mask(Mask{MaskKind::kSlidingWindow, 8}), "window:8");
}

// Reference and fast attention against the naive loop (ref::attention), both Lq < Lk and
// Lq > Lk, with offsets and padding: both read MaskRule, the loop reads the definition.
TEST(MaskRule, ReferenceAndFastAttentionMatchTheNaiveLoop) {
  struct Case {
    std::size_t Lq, Lk;
  };
  // Sizes off the reference's 128-row blocks and the fast path's 4-row blocks.
  for (const Case c : {Case{5, 9}, Case{9, 5}, Case{13, 13}, Case{130, 140}, Case{140, 7}}) {
    const std::size_t H = 2, d = 8, dv = 5;
    const TensorF q = ref::random_tensor({H, c.Lq, d}, 31, -2, 2);
    const TensorF k = ref::random_tensor({H, c.Lk, d}, 32, -2, 2);
    const TensorF v = ref::random_tensor({H, c.Lk, dv}, 33);
    for (Mask m : MasksWithOffsets()) {
      if (c.Lq > 100 && m.offset != 0 && m.offset != 40 && m.offset != -20) continue;  // time
      for (const bool padded : {false, true}) {
        SCOPED_TRACE(Describe(m, static_cast<long long>(c.Lq), static_cast<long long>(c.Lk)) +
                     (padded ? " padded" : ""));
        AttentionOptions o;
        o.mask = m;
        if (padded) o.key_padding = Padding(c.Lk);
        const ref::AttentionOut want =
            ref::attention(q, k, v, Spec(m), o.key_padding, nullptr, std::nullopt);
        const poslab::AttentionResult core = poslab::attention(q, k, v, o);
        const poslab::AttentionResult fast = poslab::fast::attention(q, k, v, o);
        EXPECT_ALLCLOSE(core.output, want.output, ref::kAcceptance);
        EXPECT_ALLCLOSE(core.weights, want.weights, ref::kAcceptance);
        EXPECT_ALLCLOSE(fast.output, want.output, ref::kAcceptance);
        EXPECT_ALLCLOSE(fast.weights, want.weights, ref::kAcceptance);
      }
    }
  }
}

// The scores are the softmax's input: q·k·scale + bias, −∞ where hidden. Checked against the
// dot products computed here, and against the weights: softmax(scores) = weights.
TEST(AttentionScores, AreScaledBiasedScoresWithHiddenKeysAtMinusInfinity) {
  const std::size_t H = 2, Lq = 6, Lk = 8, d = 4, dv = 3;
  const auto [q, k, v] = ref::random_attention_inputs(H, Lq, Lk, d, dv, 41);
  TensorF bias = ref::random_tensor({H, Lq, Lk}, 44, -1, 1);
  bias.data[3] = -std::numeric_limits<float>::infinity();
  AttentionOptions o;
  o.mask = {MaskKind::kSlidingWindow, 3, 2};
  o.key_padding = Padding(Lk);
  o.bias = &bias;
  o.scale = 0.7;
  o.return_scores = true;
  const ref::MaskSpec spec = Spec(o.mask);
  for (const bool fast : {false, true}) {
    const poslab::AttentionResult r =
        fast ? poslab::fast::attention(q, k, v, o) : poslab::attention(q, k, v, o);
    ASSERT_EQ(r.scores.shape, (poslab::Shape{H, Lq, Lk}));
    for (std::size_t h = 0; h < H; ++h) {
      for (std::size_t i = 0; i < Lq; ++i) {
        double z = 0.0;
        for (std::size_t j = 0; j < Lk; ++j) {
          const std::size_t n = (h * Lq + i) * Lk + j;
          double dot = 0.0;
          for (std::size_t c = 0; c < d; ++c) {
            dot += double(q.data[(h * Lq + i) * d + c]) * double(k.data[(h * Lk + j) * d + c]);
          }
          const bool hidden = spec.hides(static_cast<long long>(i), static_cast<long long>(j)) ||
                              o.key_padding[j] || std::isinf(bias.data[n]);
          if (hidden) {
            EXPECT_EQ(r.scores.data[n], -std::numeric_limits<float>::infinity()) << n;
          } else {
            EXPECT_NEAR(r.scores.data[n], dot * 0.7 + bias.data[n], 1e-5) << n;
            z += std::exp(double(r.scores.data[n]));
          }
        }
        for (std::size_t j = 0; j < Lk; ++j) {
          const std::size_t n = (h * Lq + i) * Lk + j;
          const double w = z > 0.0 ? std::exp(double(r.scores.data[n])) / z : 0.0;
          EXPECT_NEAR(r.weights.data[n], w, 1e-5) << n;
        }
      }
    }
  }
}

}  // namespace
}  // namespace mask_test
