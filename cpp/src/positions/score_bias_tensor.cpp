// The core's score-bias tensor: each method's term (score_bias.hpp) evaluated over a grid of
// query and key positions, in double, stored float32.
#include "poslab/positions/score_bias_tensor.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "positions/term_grid.hpp"
#include "poslab/base/format.hpp"
#include "poslab/base/random.hpp"
#include "poslab/positions/relative.hpp"
#include "poslab/positions/score_bias.hpp"

namespace poslab {

namespace {

T5BucketOptions t5_options(const ScoreBias& bias) {
  T5BucketOptions o;
  o.bidirectional = bias.bidirectional;
  o.num_buckets = static_cast<long long>(bias.options[0]);
  o.max_distance = static_cast<long long>(bias.options[1]);
  require(double(o.num_buckets) == bias.options[0], "numBuckets",
          "num_buckets must be a whole number");
  require(double(o.max_distance) == bias.options[1], "maxDistance",
          "max_distance must be a whole number");
  return o;
}

// The number of values of tensor `t` for H heads (T5's buckets are option 0).
std::size_t tensor_numel(const score_bias::ParameterTensor& t, const ScoreBias& bias,
                         std::size_t H) {
  return score_bias::tensor_numel(t, H, static_cast<std::size_t>(bias.options[0]));
}

// make(H, fill) for term_grid: `bias`'s parameters for H heads, then fill(its term).
auto term_of(const ScoreBias& bias) {
  return [&bias](std::size_t H, const auto& fill) {
    const std::vector<float> parameters = score_bias_parameters(bias, static_cast<long long>(H));
    score_bias::TermShape shape;
    shape.heads = int(H);
    shape.options[0] = bias.options[0];
    shape.options[1] = bias.options[1];
    shape.bidirectional = bias.bidirectional;
    // The core's biases are the relative terms (the table's core bit); FIRE's reads the query's
    // position too and is the trainer's, and leaving it out keeps its code out of the core.
    return score_bias::with_score_bias_term(
        bias.method, parameters.data(), shape, [&](const auto& term) -> TensorF {
          if constexpr (std::decay_t<decltype(term)>::kRelative) {
            return fill(term);
          } else {
            throw Error(std::string(to_string(bias.method)) + " has no bias tensor in the core",
                        "bias");
          }
        });
  };
}

}  // namespace

ScoreBias score_bias_defaults(PositionMethod method) {
  ScoreBias bias;
  bias.method = method;
  const PositionMethodInfo& info = position_method_info(method);
  for (std::size_t k = 0; k < info.option_count; ++k)
    bias.options[k] = info.options[k].default_value;
  return bias;
}

std::vector<float> score_bias_parameters(const ScoreBias& bias, long long num_heads) {
  const std::size_t H = detail::checked_bias_heads(num_heads);
  const PositionMethodInfo& info = position_method_info(bias.method);
  require(info.term != BiasTerm::kNone, "bias",
          std::string("position method '") + info.name + "' is not a score bias");
  if (bias.method == PositionMethod::kT5) check_t5_options(t5_options(bias));
  std::size_t count = 0;
  for (const score_bias::ParameterTensor& t : score_bias::parameter_tensors(bias.method)) {
    count += tensor_numel(t, bias, H);
  }
  if (!bias.parameters.empty()) {
    require(bias.parameters.size() == count, "parameters",
            std::string(info.name) + " with " + std::to_string(H) + " heads needs " +
                std::to_string(count) + " parameters, got " +
                std::to_string(bias.parameters.size()));
    require(std::all_of(bias.parameters.begin(), bias.parameters.end(),
                        [](float x) { return std::isfinite(x); }),
            "parameters", "score-bias parameters must be finite");
    return bias.parameters;
  }
  // Drawn as the trainer starts them, but a normal table at std 1 so its pattern shows; an
  // option tied to a tensor sets all of it when > 0.
  std::vector<float> parameters(count);
  Rng rng(bias.seed);
  float* at = parameters.data();
  for (score_bias::ParameterTensor t : score_bias::parameter_tensors(bias.method)) {
    if (t.init == score_bias::ParameterTensor::kNormal) t.value = 1.0;
    const std::size_t n = tensor_numel(t, bias, H);
    score_bias::initialize(t, rng, at, n);
    if (t.option >= 0) {
      const PositionOption& o = info.options[std::size_t(t.option)];
      const double given = bias.options[std::size_t(t.option)];
      require(std::isfinite(given) && given >= o.min && given <= o.max, o.name,
              std::string(info.name) + " " + o.name + " must be in [" + format_number(o.min) +
                  ", " + format_number(o.max) + "] (0: the seed's), got " + format_number(given));
      if (given > 0.0) std::fill(at, at + n, static_cast<float>(given));
    }
    at += n;
  }
  return parameters;
}

TensorF score_bias_tensor(const ScoreBias& bias, long long num_heads, long long query_length,
                          long long key_length, long long offset) {
  return detail::term_grid_at_offset(term_of(bias), num_heads, query_length, key_length, offset,
                                     std::string(to_string(bias.method)) + " bias");
}

TensorF score_bias_tensor(const ScoreBias& bias, long long num_heads,
                          const std::vector<long long>& positions) {
  return detail::term_grid_at(term_of(bias), num_heads, positions,
                              std::string(to_string(bias.method)) + " bias");
}

}  // namespace poslab
