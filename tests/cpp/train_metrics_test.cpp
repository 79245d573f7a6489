// The lab's metrics (train/metrics.hpp) on evaluations written by hand: which lengths each
// metric reads, EOS left out of the answer accuracy, empty metrics past the evaluated lengths,
// the sample standard deviation over seeds, and result.json's summary of several runs.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "poslab/train/metrics.hpp"

namespace poslab::train {
namespace {

// Lengths 1..M with exact match `exact(L)` and every answer of L tokens + EOS: tokens right
// with `token(L)`, EOS always right.
EvalResult evaluation(std::size_t M, double (*exact)(std::size_t), double (*token)(std::size_t)) {
  EvalResult e;
  for (std::size_t L = 1; L <= M; ++L) {
    e.accuracy_by_length.push_back(exact(L));
    std::vector<double> by_position(L, token(L));
    by_position.push_back(1.0);  // EOS
    e.token_accuracy_by_position.push_back(by_position);
  }
  return e;
}

double value_of(const LabMetrics& m, const std::string& name) {
  for (const auto& [n, v] : m) {
    if (n == name) return v.value();
  }
  ADD_FAILURE() << "no metric " << name;
  return NAN;
}

TEST(TrainMetrics, EachMetricReadsItsLengths) {
  // N = 2, M = 8: in distribution 1..2, N..2N 3..4, 2N..4N 5..8.
  const EvalResult e = evaluation(
      8, [](std::size_t L) { return L <= 2   ? 1.0
                                    : L <= 4 ? 0.25 * double(L - 2)
                                             : 0.125; },
      [](std::size_t L) { return L == 3 ? 0.5 : 0.8; });
  const LabMetrics m = lab_metrics(e, 2);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].first, "exact_match_in_distribution");
  EXPECT_DOUBLE_EQ(value_of(m, "exact_match_in_distribution"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(m, "exact_match_n_to_2n"), (0.25 + 0.5) / 2);
  // Tokens of lengths 3 and 4, EOS left out: (3·0.5 + 4·0.8) / 7.
  EXPECT_DOUBLE_EQ(value_of(m, "answer_accuracy_n_to_2n"), (3 * 0.5 + 4 * 0.8) / 7);
  EXPECT_DOUBLE_EQ(value_of(m, "exact_match_2n_to_4n"), 0.125);
}

TEST(TrainMetrics, LengthsNotEvaluatedGiveNoValue) {
  const auto exact = [](std::size_t) { return 1.0; };
  const LabMetrics up_to_n = lab_metrics(evaluation(4, exact, exact), 4);
  EXPECT_TRUE(up_to_n[0].second.has_value());
  EXPECT_FALSE(up_to_n[1].second.has_value());
  EXPECT_FALSE(up_to_n[2].second.has_value());
  EXPECT_FALSE(up_to_n[3].second.has_value());
  // M = 5 with N = 4: one length past N; none past 2N.
  const LabMetrics m = lab_metrics(evaluation(5, exact, exact), 4);
  EXPECT_TRUE(m[1].second.has_value());
  EXPECT_FALSE(m[3].second.has_value());
}

TEST(TrainMetrics, SummaryIsMeanAndSampleSd) {
  const SeedSummary s = summarize({0.2, 0.4, 0.9});
  EXPECT_DOUBLE_EQ(*s.mean, 0.5);
  EXPECT_DOUBLE_EQ(*s.sd, std::sqrt((0.09 + 0.01 + 0.16) / 2));
  const SeedSummary one = summarize({0.7});
  EXPECT_DOUBLE_EQ(*one.mean, 0.7);
  EXPECT_EQ(*one.sd, 0.0);
  const SeedSummary missing = summarize({0.7, std::nullopt});
  EXPECT_FALSE(missing.mean.has_value());
  EXPECT_EQ(missing.values.size(), 2u);
}

TEST(TrainMetrics, SeedsResultKeepsTheFirstRunAndSummarises) {
  const auto run = [](double x, const char* tag) {
    return nlohmann::ordered_json{
        {"tag", tag}, {"metrics", {{"exact_match_n_to_2n", x}, {"exact_match_2n_to_4n", nullptr}}}}
        .dump();
  };
  const auto j = nlohmann::json::parse(seeds_result_json({run(0.5, "a"), run(0.7, "b")}));
  EXPECT_EQ(j["tag"], "a");
  EXPECT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][1]["tag"], "b");
  EXPECT_DOUBLE_EQ(j["summary"]["exact_match_n_to_2n"]["mean"].get<double>(), 0.6);
  EXPECT_NEAR(j["summary"]["exact_match_n_to_2n"]["sd"].get<double>(), std::sqrt(0.02), 1e-15);
  EXPECT_TRUE(j["summary"]["exact_match_2n_to_4n"]["mean"].is_null());
  EXPECT_TRUE(j["summary"]["exact_match_2n_to_4n"]["values"][0].is_null());
}

}  // namespace
}  // namespace poslab::train
