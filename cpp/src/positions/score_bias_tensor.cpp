// The core's score-bias tensor: each method's term (score_bias.hpp) evaluated over a grid of
// query and key positions, in double, stored float32.
#include "poslab/positions/score_bias_tensor.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "poslab/base/format.hpp"
#include "poslab/base/random.hpp"
#include "poslab/layers/attention.hpp"
#include "poslab/layers/mask.hpp"
#include "poslab/positions/relative.hpp"
#include "poslab/positions/score_bias.hpp"

namespace poslab {

namespace {

std::size_t checked_heads(long long num_heads) {
  const std::size_t H = positive_size(num_heads, "heads", false, "heads");
  require(H <= 65536, "heads",
          "heads must be at most 65536 (got " + std::to_string(num_heads) + ")");
  return H;
}

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

// The number of values of tensor `t` for H heads.
std::size_t tensor_numel(const score_bias::ParameterTensor& t, const ScoreBias& bias,
                         std::size_t H) {
  const auto buckets = static_cast<std::size_t>(bias.options[0]);
  return score_bias::tensor_size(t.rows, H, buckets) * score_bias::tensor_size(t.cols, H, buckets);
}

// (H, Lq, Lk): the term at (query(i), key(j)) for every head.
template <class QueryAt, class KeyAt>
TensorF evaluate(const ScoreBias& bias, std::size_t H, std::size_t Lq, std::size_t Lk,
                 QueryAt query, KeyAt key) {
  const std::vector<float> parameters = score_bias_parameters(bias, static_cast<long long>(H));
  TensorF out({H, Lq, Lk}, std::string(to_string(bias.method)) + " bias (H, Lq, Lk)");
  std::vector<double> values(H);
  score_bias::TermShape shape;
  shape.heads = int(H);
  shape.options[0] = bias.options[0];
  shape.options[1] = bias.options[1];
  shape.bidirectional = bias.bidirectional;
  score_bias::with_score_bias_term(bias.method, parameters.data(), shape, [&](const auto& term) {
    for (std::size_t i = 0; i < Lq; ++i) {
      for (std::size_t j = 0; j < Lk; ++j) {
        term.values(query(i), key(j), values.data());
        for (std::size_t h = 0; h < H; ++h) {
          out.data[(h * Lq + i) * Lk + j] = static_cast<float>(values[h]);
        }
      }
    }
  });
  return out;
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
  const std::size_t H = checked_heads(num_heads);
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
  const std::size_t H = checked_heads(num_heads);
  const std::size_t Lq = positive_size(query_length, "query length", true, "queryLength");
  const std::size_t Lk = positive_size(key_length, "key length", true, "keyLength");
  check_mask_offset(offset);
  checked_numel({H, Lq, Lk}, "score bias (H, Lq, Lk)");
  const MaskRule<std::int64_t> positions{false, 0, offset};
  return evaluate(
      bias, H, Lq, Lk, [&](std::size_t i) { return positions.position(std::int64_t(i)); },
      [](std::size_t j) { return std::int64_t(j); });
}

TensorF score_bias_tensor(const ScoreBias& bias, long long num_heads,
                          const std::vector<long long>& positions) {
  const std::size_t H = checked_heads(num_heads), T = positions.size();
  checked_numel({H, T, T}, "score bias (H, T, T)");
  const auto at = [&](std::size_t i) { return std::int64_t(positions[i]); };
  return evaluate(bias, H, T, T, at, at);
}

}  // namespace poslab
