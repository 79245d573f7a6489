#include "poslab/train/metrics.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "metrics_json.hpp"
#include "poslab/base/errors.hpp"

namespace poslab::train {
namespace {

// Lengths lo..hi (1-based, clipped to what was evaluated); empty when none was.
std::optional<double> mean_exact_match(const EvalResult& eval, std::size_t lo, std::size_t hi) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t L = lo; L <= hi && L <= eval.accuracy_by_length.size(); ++L, ++n) {
    sum += eval.accuracy_by_length[L - 1];
  }
  if (n == 0) return std::nullopt;
  return sum / double(n);
}

// Every answer token of lengths lo..hi but the last of each answer (EOS), weighted alike.
std::optional<double> answer_accuracy(const EvalResult& eval, std::size_t lo, std::size_t hi) {
  double right = 0;
  std::size_t tokens = 0;
  for (std::size_t L = lo; L <= hi && L <= eval.token_accuracy_by_position.size(); ++L) {
    const std::vector<double>& by_position = eval.token_accuracy_by_position[L - 1];
    for (std::size_t k = 0; k + 1 < by_position.size(); ++k, ++tokens) right += by_position[k];
  }
  if (tokens == 0) return std::nullopt;
  return right / double(tokens);
}

}  // namespace

LabMetrics lab_metrics(const EvalResult& eval, std::size_t train_len) {
  if (eval.text) {
    LabMetrics metrics;
    for (const ContextLoss& row : eval.text->by_context) {
      metrics.emplace_back("loss_at_" + std::to_string(row.context), row.loss);
    }
    return metrics;
  }
  const std::size_t N = train_len;
  return {{"exact_match_in_distribution", mean_exact_match(eval, 1, N)},
          {"exact_match_n_to_2n", mean_exact_match(eval, N + 1, 2 * N)},
          {"answer_accuracy_n_to_2n", answer_accuracy(eval, N + 1, 2 * N)},
          {"exact_match_2n_to_4n", mean_exact_match(eval, 2 * N + 1, 4 * N)}};
}

SeedSummary summarize(const std::vector<std::optional<double>>& values) {
  SeedSummary s;
  s.values = values;
  if (values.empty()) return s;
  double sum = 0;
  for (const auto& v : values) {
    if (!v) return s;
    sum += *v;
  }
  const double n = double(values.size()), mean = sum / n;
  double squares = 0;
  for (const auto& v : values) squares += (*v - mean) * (*v - mean);
  s.mean = mean;
  s.sd = values.size() > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
  return s;
}

nlohmann::ordered_json metrics_summary(const nlohmann::ordered_json& runs) {
  using Json = nlohmann::ordered_json;
  const auto value = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  Json summary = Json::object();
  for (const auto& [name, first] : runs.at(0).at("metrics").items()) {
    std::vector<std::optional<double>> values;
    for (const Json& run : runs) {
      const Json& v = run.at("metrics").at(name);
      values.push_back(v.is_null() ? std::nullopt : std::optional<double>(v.get<double>()));
    }
    const SeedSummary s = summarize(values);
    Json list = Json::array();
    for (const auto& v : s.values) list.push_back(value(v));
    summary[name] = {{"mean", value(s.mean)}, {"sd", value(s.sd)}, {"values", list}};
  }
  return summary;
}

bool ranks_above(const SeedSummary& a, const SeedSummary& b) {
  return a.mean && b.mean && a.sd && b.sd && *a.mean - *b.mean > *a.sd + *b.sd;
}

std::string seeds_result_json(const std::vector<std::string>& runs) {
  using Json = nlohmann::ordered_json;
  require(!runs.empty(), "seeds", "no run to summarise");
  Json result = Json::parse(runs.front());
  Json all = Json::array();
  for (const std::string& run : runs) all.push_back(Json::parse(run));
  result["runs"] = all;
  result["summary"] = metrics_summary(all);
  return result.dump(1);
}

}  // namespace poslab::train
