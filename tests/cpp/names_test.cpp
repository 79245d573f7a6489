// The name tables (names.hpp): each lists every enumerator once, parse and format are inverse,
// and the messages list the table's names (the CLI and JS messages tests pin their wording).
#include "poslab/base/names.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>

#include "poslab/analysis/analysis.hpp"
#include "poslab/layers/attention.hpp"
#include "poslab/layers/multihead.hpp"
#include "poslab/models/gpt2.hpp"
#include "poslab/positions/position_methods.hpp"
#include "poslab/positions/rope.hpp"
#include "poslab/positions/sinusoidal.hpp"
#include "poslab/train/config.hpp"

namespace {

// Distinct names and values, `count` of them (the enum's size, written out here); a `dense`
// table names every enumerator 0..count−1, a context's subset of the position methods does not.
template <class Table>
void ExpectComplete(const Table& table, std::size_t count, bool dense = true) {
  EXPECT_EQ(std::size(table), count);
  std::set<std::string> names;
  std::set<int> values;
  for (const auto& entry : table) {
    names.insert(entry.name);
    values.insert(static_cast<int>(entry.value));
    EXPECT_STREQ(poslab::name_of(table, entry.value), entry.name);
    EXPECT_EQ(poslab::parse_name(table, entry.name, "thing", "field"), entry.value);
  }
  EXPECT_EQ(names.size(), count);
  EXPECT_EQ(values.size(), count);
  for (int v = 0; dense && v < int(count); ++v) EXPECT_TRUE(values.count(v)) << v;
}

TEST(Names, EveryTableListsEachEnumeratorOnce) {
  ExpectComplete(poslab::kRopeStyleNames, 2);
  ExpectComplete(poslab::kRopeScalingNames, 6);
  ExpectComplete(poslab::kMaskNames, 3);
  ExpectComplete(poslab::kSimilarityMetricNames, 2);
  ExpectComplete(poslab::kSinusoidalLayoutNames, 2);
  ExpectComplete(poslab::kPositionKindNames, 7);
  ExpectComplete(poslab::kPositionBiasNames, 4, false);
  ExpectComplete(poslab::kGpt2PositionNames, 5, false);
  ExpectComplete(poslab::train::kPositionMethodNames, 13, false);
}

TEST(Names, NoPositionIsNamedNoneEverywhere) {
  EXPECT_STREQ(poslab::to_string(poslab::Gpt2Position::kNone), "none");
  EXPECT_EQ(poslab::parse_gpt2_position("none"), poslab::Gpt2Position::kNone);
  EXPECT_EQ(poslab::parse_position_bias("none"), poslab::PositionBias::kNone);
}

// `call` throws Error with exactly `message` and `field`.
void ExpectError(const std::function<void()>& call, const char* message, const char* field) {
  try {
    call();
    ADD_FAILURE() << "no error, expected: " << message;
  } catch (const poslab::Error& e) {
    EXPECT_STREQ(e.what(), message);
    EXPECT_EQ(e.field(), field);
  }
}

TEST(Names, UnknownNameListsTheChoicesAndNamesTheField) {
  ExpectError([] { poslab::parse_rope_scaling("cubic"); },
              "unknown RoPE scaling 'cubic' (expected none, linear, ntk, dynamic, yarn or llama3)",
              "scaling");
  ExpectError([] { poslab::parse_mask("future"); },
              "unknown mask 'future' (expected none, causal or window:W)", "mask");
  ExpectError([] { poslab::parse_position_bias("cubic"); },
              "unknown position bias 'cubic' (expected alibi, t5, kerple or none)", "bias");
  ExpectError([] { poslab::parse_gpt2_position("cubic"); },
              "unknown GPT-2 position method 'cubic' (expected learned, sinusoidal, rope, alibi or "
              "none)",
              "position");
  EXPECT_EQ(poslab::name_list(poslab::kSinusoidalLayoutNames), "interleaved or concat");
}

// One row per method, in the enum's order, with distinct names and aliases that parse to it;
// each context lists exactly the methods whose row says it supports them.
TEST(PositionMethods, TheTableHasOneRowPerMethodAndEachContextReadsIt) {
  std::set<std::string> names;
  for (std::size_t n = 0; n < poslab::kPositionMethodCount; ++n) {
    const auto method = static_cast<poslab::PositionMethod>(n);
    const poslab::PositionMethodInfo& info = poslab::position_method_info(method);
    EXPECT_EQ(info.method, method);
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(poslab::parse_position_method(info.name, 0, "method", "f"), method);
    EXPECT_LE(info.option_count, info.options.size());
  }
  EXPECT_EQ(poslab::parse_position_method("nope", 0, "method", "f"), poslab::PositionMethod::kNone);
  EXPECT_EQ(poslab::parse_position_method("rotary", poslab::kSupportTrainer, "method", "f"),
            poslab::PositionMethod::kRope);
  const auto listed = [](const auto& table, unsigned where) {
    std::size_t count = 0;
    for (const auto& entry : table) {
      EXPECT_TRUE(poslab::supports(entry.value, where)) << entry.name;
      ++count;
    }
    std::size_t want = 0;
    for (const auto& m : poslab::kPositionMethods) want += (m.support & where) == where;
    EXPECT_EQ(count, want);
  };
  listed(poslab::kPositionBiasNames, poslab::kSupportBias);
  listed(poslab::kGpt2PositionNames, poslab::kSupportGpt2Swap);
  listed(poslab::train::kPositionMethodNames, poslab::kSupportTrainer);
  // Coupling is a trainer option: every method it takes trains.
  for (const auto& entry : poslab::position_method_names<poslab::kSupportCoupled>()) {
    EXPECT_TRUE(poslab::supports(entry.value, poslab::kSupportTrainer)) << entry.name;
  }
}

// The table's defaults are the ones the core computes with.
TEST(PositionMethods, OptionDefaultsAreTheCores) {
  const auto option = [](poslab::PositionMethod m, const char* name) {
    const poslab::PositionMethodInfo& info = poslab::position_method_info(m);
    for (std::size_t k = 0; k < info.option_count; ++k) {
      if (std::string(info.options[k].name) == name) return info.options[k].default_value;
    }
    ADD_FAILURE() << info.name << " has no option " << name;
    return 0.0;
  };
  const poslab::T5BucketOptions t5;
  const poslab::RopeOptions rope;
  EXPECT_EQ(option(poslab::PositionMethod::kT5, "numBuckets"), double(t5.num_buckets));
  EXPECT_EQ(option(poslab::PositionMethod::kT5, "maxDistance"), double(t5.max_distance));
  EXPECT_EQ(option(poslab::PositionMethod::kRope, "base"), rope.base);
  EXPECT_EQ(option(poslab::PositionMethod::kRope, "rotaryFraction"), rope.rotary_fraction);
  EXPECT_EQ(option(poslab::PositionMethod::kSinusoidal, "base"), poslab::defaults::kBase);
  EXPECT_EQ(option(poslab::PositionMethod::kLearned, "std"), poslab::defaults::kLearnedStd);
}

// A method outside a context is named as such, not as unknown.
TEST(PositionMethods, AMethodOutsideItsContextIsRefusedWithTheContextsList) {
  ExpectError([] { poslab::parse_gpt2_position("t5"); },
              "GPT-2 position method 't5' is not available here (expected learned, sinusoidal, "
              "rope, alibi or none)",
              "position");
  poslab::MultiHeadOptions o;
  o.bias.method = poslab::PositionMethod::kRope;
  ExpectError(
      [&] {
        poslab::multihead_attention(poslab::TensorF({2, 4}), poslab::random_multihead_weights(4),
                                    o);
      },
      "rope is not a position bias (expected alibi, t5, kerple or none)", "bias");
}

}  // namespace
