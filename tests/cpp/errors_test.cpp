// Errors name the option they are about (Error::field, the JS option name), so a front-end
// never guesses it from the message: one case per check of the core that has a field.
#include "poslab/base/errors.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "poslab/fast/fast.hpp"
#include "poslab/poslab.hpp"

namespace {

using poslab::RopeOptions;
using poslab::RopeScaling;

// The field of the Error `call` throws ("(no error)" when it throws none).
std::string FieldOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const poslab::Error& e) {
    return e.field();
  }
  return "(no error)";
}

RopeOptions Llama3(double low, double high) {
  RopeOptions o;
  o.scaling = RopeScaling::kLlama3;
  o.factor = 8;
  o.original_length = 8192;
  o.low_freq_factor = low;
  o.high_freq_factor = high;
  return o;
}

TEST(ErrorField, RopeOptionsNameTheOptionAtFault) {
  const auto freq = [](const RopeOptions& o, long long D = 64) {
    return [o, D] { poslab::rope_frequencies(D, o); };
  };
  EXPECT_EQ(FieldOf(freq(Llama3(4, 1))), "lowFreqFactor");  // misordered
  EXPECT_EQ(FieldOf(freq(Llama3(-1, 4))), "lowFreqFactor");
  EXPECT_EQ(FieldOf(freq(Llama3(1, 0))), "highFreqFactor");
  RopeOptions o;
  o.base = 1.0;
  EXPECT_EQ(FieldOf(freq(o)), "base");
  o = {};
  o.scaling = RopeScaling::kLinear;
  o.factor = 0.5;
  EXPECT_EQ(FieldOf(freq(o)), "factor");
  o = {};
  o.scaling = RopeScaling::kYarn;
  o.factor = 2;
  EXPECT_EQ(FieldOf(freq(o)), "originalLength");
  o.original_length = 64;
  o.beta_slow = 0;
  EXPECT_EQ(FieldOf(freq(o)), "betaSlow");
  o = {};
  o.rotary_fraction = 1.5;
  EXPECT_EQ(FieldOf(freq(o)), "rotaryFraction");
  o.rotary_fraction = 0.5;
  EXPECT_EQ(FieldOf(freq(o, 6)), "rotaryFraction");  // R = 3 is odd
  EXPECT_EQ(FieldOf(freq(RopeOptions{}, 7)), "headDim");
  EXPECT_EQ(FieldOf(freq(RopeOptions{}, 0)), "headDim");
  EXPECT_EQ(FieldOf([] { poslab::parse_rope_style("llama"); }), "style");
}

TEST(ErrorField, TablesAndSizesNameTheirArgument) {
  EXPECT_EQ(FieldOf([] { poslab::sinusoidal_table(4, 7); }), "dim");
  EXPECT_EQ(FieldOf([] { poslab::sinusoidal_table(-1, 8); }), "length");
  EXPECT_EQ(FieldOf([] { poslab::sinusoidal_table(4, 8, -2.0); }), "base");
  EXPECT_EQ(FieldOf([] {
              poslab::sinusoidal_table(4, 8, 10000.0, poslab::SinusoidalLayout::kConcat, -1);
            }),
            "offset");
  EXPECT_EQ(FieldOf([] { poslab::parse_sinusoidal_layout("rows"); }), "layout");
  EXPECT_EQ(FieldOf([] { poslab::alibi_bias(0, 4, 4); }), "heads");
  EXPECT_EQ(FieldOf([] { poslab::t5_buckets(-2, 4); }), "queryLength");
  poslab::T5BucketOptions t5;
  t5.num_buckets = 1;
  EXPECT_EQ(FieldOf([t5] { poslab::t5_buckets(2, 4, t5); }), "numBuckets");
  EXPECT_EQ(FieldOf([] { poslab::parse_similarity_metric("l2"); }), "metric");
  EXPECT_EQ(FieldOf([] { poslab::layer_norm(poslab::TensorF({2, 3}), -1.0); }), "eps");
  // A check about no single option has no field; the message is unchanged either way.
  EXPECT_EQ(FieldOf([] { poslab::learned_table(1 << 20, 1 << 20); }), "");
}

TEST(ErrorField, AttentionNamesTheTensorOrOption) {
  const poslab::TensorF q({2, 4}), k({3, 4}), v({3, 2}), k5({3, 5});
  poslab::AttentionOptions o;
  EXPECT_EQ(FieldOf([&] { poslab::attention(q, k5, v, o); }), "k");
  o.key_padding = {1, 0};
  EXPECT_EQ(FieldOf([&] { poslab::attention(q, k, v, o); }), "keyPadding");
  o.key_padding.clear();
  o.scale = std::numeric_limits<double>::infinity();
  EXPECT_EQ(FieldOf([&] { poslab::attention(q, k, v, o); }), "scale");
  o.scale.reset();
  poslab::TensorF nan_q({2, 4});
  nan_q.data[5] = std::nanf("");
  EXPECT_EQ(FieldOf([&] { poslab::fast::attention(nan_q, k, v, o); }), "q");
  const poslab::TensorF x({3, 6});
  poslab::MultiHeadOptions mh;
  mh.num_heads = 4;
  EXPECT_EQ(
      FieldOf([&] { poslab::multihead_attention(x, poslab::random_multihead_weights(6), mh); }),
      "heads");
  mh.num_heads = 2;
  mh.custom_mask = {1, 0};
  EXPECT_EQ(
      FieldOf([&] { poslab::multihead_attention(x, poslab::random_multihead_weights(6), mh); }),
      "customMask");
}

TEST(ErrorField, MessagesAreUnchangedByTheField) {
  try {
    poslab::rope_frequencies(64, Llama3(4, 1));
    FAIL() << "no error";
  } catch (const poslab::Error& e) {
    EXPECT_STREQ(e.what(), "llama3 needs 0 < low_freq_factor <= high_freq_factor");
  }
}

}  // namespace
