// Relative positions as table indices: Shaw's clipped distances and T5's buckets.
#include "poslab/positions/relative.hpp"

#include <string>

#include "poslab/layers/attention.hpp"
#include "poslab/layers/mask.hpp"
#include "poslab/positions/formulas.hpp"
#include "poslab/positions/learned.hpp"
#include "poslab/positions/score_bias_tensor.hpp"

namespace poslab {

void check_t5_options(const T5BucketOptions& options) {
  const long long min_buckets = options.bidirectional ? 4 : 2;
  require(options.num_buckets >= min_buckets && options.num_buckets <= (1 << 20), "numBuckets",
          "num_buckets must be in [" + std::to_string(min_buckets) + ", 1048576] (got " +
              std::to_string(options.num_buckets) + ")");
  const long long half = options.bidirectional ? options.num_buckets / 2 : options.num_buckets;
  const long long max_exact = half / 2;
  require(options.max_distance > max_exact && options.max_distance <= (1LL << 30), "maxDistance",
          "max_distance must be in (" + std::to_string(max_exact) + ", 2^30] (got " +
              std::to_string(options.max_distance) + ")");
}

// (Lq, Lk) int32.
TensorI shaw_indices(long long query_length, long long key_length, long long max_distance) {
  const std::size_t Lq = positive_size(query_length, "query length", true, "queryLength");
  const std::size_t Lk = positive_size(key_length, "key length", true, "keyLength");
  const std::size_t K = positive_size(max_distance, "max distance", true, "maxDistance");
  require(K < (1u << 30), "maxDistance", "max distance is too large");
  TensorI index({Lq, Lk}, "Shaw indices (Lq, Lk)");
  for (std::size_t i = 0; i < Lq; ++i) {
    for (std::size_t j = 0; j < Lk; ++j) {
      index.data[i * Lk + j] = formulas::shaw_index(std::int64_t(i), std::int64_t(j), int(K));
    }
  }
  return index;
}

// (2K+1, D).
TensorF shaw_table(long long max_distance, long long dim, std::uint64_t seed, double std) {
  const std::size_t K = positive_size(max_distance, "max distance", true, "maxDistance");
  require(K < (1u << 30), "maxDistance", "max distance is too large");
  return learned_table(static_cast<long long>(2 * K + 1), dim, seed, std);
}

// (Lq, Lk, D).
TensorF shaw_embeddings(long long query_length, long long key_length, long long max_distance,
                        long long dim, std::uint64_t seed, double std) {
  // Check the output size first: the index table alone may be large.
  checked_numel({positive_size(query_length, "query length", true, "queryLength"),
                 positive_size(key_length, "key length", true, "keyLength"),
                 positive_size(dim, "dim", false, "dim")},
                "Shaw embeddings (Lq, Lk, D)");
  const TensorI index = shaw_indices(query_length, key_length, max_distance);
  const TensorF table = shaw_table(max_distance, dim, seed, std);
  const std::size_t D = table.dim(1);
  TensorF out({index.dim(0), index.dim(1), D}, "Shaw embeddings (Lq, Lk, D)");
  for (std::size_t n = 0; n < index.size(); ++n) {
    const float* row = table.ptr() + std::size_t(index.data[n]) * D;
    std::copy(row, row + D, out.ptr() + n * D);
  }
  return out;
}

// (Lq, Lk) int32, relative position = key − query.
TensorI t5_buckets(long long query_length, long long key_length, const T5BucketOptions& options,
                   long long offset) {
  const std::size_t Lq = positive_size(query_length, "query length", true, "queryLength");
  const std::size_t Lk = positive_size(key_length, "key length", true, "keyLength");
  check_t5_options(options);
  check_mask_offset(offset);
  const MaskRule<std::int64_t> positions{false, 0, offset};
  TensorI buckets({Lq, Lk}, "T5 buckets (Lq, Lk)");
  for (std::size_t i = 0; i < Lq; ++i) {
    for (std::size_t j = 0; j < Lk; ++j) {
      buckets.data[i * Lk + j] = formulas::t5_bucket(
          std::int64_t(j) - positions.position(std::int64_t(i)), options.bidirectional,
          int(options.num_buckets), int(options.max_distance));
    }
  }
  return buckets;
}

// (H, Lq, Lk) from a seeded (num_buckets, H) table, through T5's term (score_bias.hpp).
TensorF t5_bias(long long num_heads, long long query_length, long long key_length,
                const T5BucketOptions& options, std::uint64_t seed, long long offset) {
  ScoreBias bias = score_bias_defaults(PositionMethod::kT5);
  bias.options = {double(options.num_buckets), double(options.max_distance)};
  bias.seed = seed;
  bias.bidirectional = options.bidirectional;
  return score_bias_tensor(bias, num_heads, query_length, key_length, offset);
}

}  // namespace poslab
