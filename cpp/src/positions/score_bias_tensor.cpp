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
#include "poslab/positions/learned.hpp"
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

// The number of parameters the term of `bias` reads for H heads.
std::size_t parameter_count(const ScoreBias& bias, std::size_t H) {
  switch (bias.method) {
    case PositionMethod::kT5:
      return std::size_t(t5_options(bias).num_buckets) * H;
    case PositionMethod::kKerple:
      return 2 * H;
    case PositionMethod::kAlibi:
      return 0;
    case PositionMethod::kFire:  // the trainer's own: its MLP has no defaults outside a model
    case PositionMethod::kLearned:
    case PositionMethod::kSinusoidal:
    case PositionMethod::kShaw:
    case PositionMethod::kRope:
    case PositionMethod::kPRope:
    case PositionMethod::kXpos:
    case PositionMethod::kNone:
      break;
  }
  throw Error(std::string("position method '") + to_string(bias.method) +
                  "' has no score-bias tensor in the core",
              "bias");
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

std::vector<float> kerple_initial(std::size_t heads, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> r(2 * heads);
  for (std::size_t h = 0; h < heads; ++h) r[h] = static_cast<float>(2 * rng.uniform());
  for (std::size_t h = 0; h < heads; ++h) r[heads + h] = static_cast<float>(rng.uniform());
  for (float& x : r) x = std::max(x, static_cast<float>(score_bias::kKerpleMin));
  return r;
}

std::vector<float> score_bias_parameters(const ScoreBias& bias, long long num_heads) {
  const std::size_t H = checked_heads(num_heads);
  const std::size_t count = parameter_count(bias, H);
  if (bias.method == PositionMethod::kT5) check_t5_options(t5_options(bias));
  if (!bias.parameters.empty()) {
    require(bias.parameters.size() == count, "parameters",
            std::string(to_string(bias.method)) + " with " + std::to_string(H) + " heads needs " +
                std::to_string(count) + " parameters, got " +
                std::to_string(bias.parameters.size()));
    require(std::all_of(bias.parameters.begin(), bias.parameters.end(),
                        [](float x) { return std::isfinite(x); }),
            "parameters", "score-bias parameters must be finite");
    return bias.parameters;
  }
  if (bias.method == PositionMethod::kT5) {
    const TensorF table = learned_table(t5_options(bias).num_buckets, num_heads, bias.seed, 1.0);
    return table.data;
  }
  if (bias.method == PositionMethod::kKerple) {
    std::vector<float> r = kerple_initial(H, bias.seed);
    const char* names[2] = {"r1", "r2"};
    for (std::size_t k = 0; k < 2; ++k) {
      const double given = bias.options[k];
      require(std::isfinite(given) && given >= 0.0, names[k],
              std::string("kerple ") + names[k] + " must be positive (or 0 for the seed's), got " +
                  format_number(given));
      if (given > 0.0) std::fill(r.begin() + k * H, r.begin() + (k + 1) * H, float(given));
    }
    return r;
  }
  return {};
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
