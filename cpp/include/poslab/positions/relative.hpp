// Relative positions that index a table: Shaw et al. (2018) clipped distances and the T5
// buckets (Raffel et al. 2020). Query i and key j are at positions i and j (T5: i + offset).
#pragma once

#include <cstdint>

#include "poslab/base/defaults.hpp"
#include "poslab/base/tensor.hpp"

namespace poslab {

// Shaw: index[i,j] = clip(j − i, −K, K) + K, (Lq, Lk) int32 in [0, 2K].
TensorI shaw_indices(long long query_length, long long key_length, long long max_distance);

// Shaw: the seeded (2K+1, D) table of learned relative embeddings (std 0.02).
TensorF shaw_table(long long max_distance, long long dim, std::uint64_t seed = 0,
                   double std = defaults::kLearnedStd);

// Shaw: a_ij = table[index[i,j]], (Lq, Lk, D).
TensorF shaw_embeddings(long long query_length, long long key_length, long long max_distance,
                        long long dim, std::uint64_t seed = 0, double std = defaults::kLearnedStd);

struct T5BucketOptions {
  bool bidirectional = false;
  long long num_buckets = 32;
  long long max_distance = 128;
};

// Throws Error (fields numBuckets, maxDistance) unless num_buckets is in [2, 2^20] ([4, 2^20]
// bidirectional) and max_distance in (max_exact, 2^30].
void check_t5_options(const T5BucketOptions& options);

// T5: bucket[i,j] of relative position j − p_i, (Lq, Lk) int32 in [0, num_buckets), with query
// i at p_i = i + offset as the mask places it (mask.hpp); offsets beyond ±2^30 are refused.
TensorI t5_buckets(long long query_length, long long key_length,
                   const T5BucketOptions& options = {}, long long offset = 0);

// T5: the additive attention bias (H, Lq, Lk) = table[bucket[i,j], h] for a seeded
// (num_buckets, H) table (what T5 learns; std 1 so the pattern is visible).
TensorF t5_bias(long long num_heads, long long query_length, long long key_length,
                const T5BucketOptions& options = {}, std::uint64_t seed = 0, long long offset = 0);

}  // namespace poslab
