// The name tables (names.hpp): each lists every enumerator once, parse and format are inverse,
// and the messages list the table's names (the CLI and JS messages tests pin their wording).
#include "poslab/names.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>

#include "poslab/analysis.hpp"
#include "poslab/attention.hpp"
#include "poslab/gpt2.hpp"
#include "poslab/multihead.hpp"
#include "poslab/rope.hpp"
#include "poslab/sinusoidal.hpp"

namespace {

// Distinct names and values, `count` of them (the enum's size, written out here).
template <class E, std::size_t N>
void ExpectComplete(const poslab::Named<E> (&table)[N], std::size_t count) {
  EXPECT_EQ(N, count);
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
  for (int v = 0; v < int(count); ++v) EXPECT_TRUE(values.count(v)) << v;
}

TEST(Names, EveryTableListsEachEnumeratorOnce) {
  ExpectComplete(poslab::kRopeStyleNames, 2);
  ExpectComplete(poslab::kRopeScalingNames, 6);
  ExpectComplete(poslab::kMaskNames, 3);
  ExpectComplete(poslab::kSimilarityMetricNames, 2);
  ExpectComplete(poslab::kSinusoidalLayoutNames, 2);
  ExpectComplete(poslab::kPositionBiasNames, 3);
  ExpectComplete(poslab::kGpt2PositionNames, 5);
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
  ExpectError([] { poslab::parse_position_bias("rope"); },
              "unknown position bias 'rope' (expected none, alibi or t5)", "bias");
  ExpectError([] { poslab::parse_gpt2_position("nope"); },
              "unknown GPT-2 position method 'nope' (expected learned, sinusoidal, rope, alibi or "
              "none)",
              "position");
  EXPECT_EQ(poslab::name_list(poslab::kSinusoidalLayoutNames), "interleaved or concat");
}

}  // namespace
