// The lab's metrics of a trained run and their summary over seeds (docs/lab.md, "Metrics").
// Lengths are the evaluated sequence lengths L = 1..M; N is the longest trained length.
//   exact_match_in_distribution  mean exact match over L = 1..N (shown first: a method under
//                                kTrainedThreshold did not train, and is not said not to
//                                generalise)
//   exact_match_n_to_2n          mean exact match over L = N+1..2N, the primary metric
//                                (teacher-forced, which equals greedy decoding's)
//   answer_accuracy_n_to_2n      the answer tokens predicted right over L = N+1..2N, EOS
//                                excluded, every token weighted alike
//   exact_match_2n_to_4n         mean exact match over L = 2N+1..4N, reported on its own
// A metric whose lengths the run did not evaluate (M ≤ N, or M ≤ 2N) is empty (null in JSON).
// The text task's metrics are loss_at_C, the held-out loss in nats per byte at each evaluated
// context C (empty where a learned table has no row).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "poslab/train/trainer.hpp"

namespace poslab::train {

// Mean in-distribution exact match under this: the method did not train.
inline constexpr double kTrainedThreshold = 0.9;
// The metric read first (under kTrainedThreshold: did not train) and the one methods are
// ranked by (docs/lab.md, "Metrics").
inline constexpr const char* kInDistributionMetric = "exact_match_in_distribution";
inline constexpr const char* kPrimaryMetric = "exact_match_n_to_2n";

using LabMetrics = std::vector<std::pair<std::string, std::optional<double>>>;

// The four metrics of one evaluation, in the order above.
LabMetrics lab_metrics(const EvalResult& eval, std::size_t train_len);

// One metric over seeds: the mean, the sample standard deviation (0 for one seed) and each
// seed's value. Empty mean and sd when any seed has no value.
struct SeedSummary {
  std::optional<double> mean, sd;
  std::vector<std::optional<double>> values;
};
SeedSummary summarize(const std::vector<std::optional<double>>& values);

// The ranking rule (web/src/lab/ranking.js's ranksAbove): `a` ranks above `b` only when
// mean_a − mean_b > sd_a + sd_b; otherwise, either way, the two tie. False when either is empty.
bool ranks_above(const SeedSummary& a, const SeedSummary& b);

// result.json of one or more seeds' runs (each a Trainer::result_json): the first run's fields
// as they are, then `runs` (every run's object, in seed order) and `summary` (each metric of
// their `metrics` over the runs: {"mean", "sd", "values"}, null where a metric is).
std::string seeds_result_json(const std::vector<std::string>& runs);

}  // namespace poslab::train
