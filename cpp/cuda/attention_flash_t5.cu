// T5's relative-position bias (Raffel et al. 2020) in the fused kernel: table[bucket(j − p), h]
// added to each score, the bucket from formulas::t5_bucket, the formula poslab::t5_buckets
// evaluates on the CPU. A key tile and a query block span only kBr + kBc − 1 distances j − p,
// so each tile's bias values are looked up once into shared memory and read per score.
#include <cstdint>

#include "attention_flash_kernel.cuh"
#include "poslab/positions/formulas.hpp"
#include "poslab/positions/relative.hpp"

namespace poslab::cuda::detail {
namespace {

struct T5ScoreMod {
  const float* table;  // (num_buckets, H) on the device
  int num_heads, num_buckets, max_distance;
  bool bidirectional;

  static constexpr bool kModifies = true;
  template <class Tl>
  static constexpr int shared_floats() {
    return Tl::kDistances + 1;  // + 1 keeps what follows 8-byte aligned
  }
  struct Head {
    int h;
    const float* staged;  // bias · log2(e) of distance first + x at staged[x]
    int first;
    __device__ float operator()(float s, int p, int j) const { return s + staged[j - p - first]; }
  };
  __device__ Head at_head(int h) const { return {h, nullptr, 0}; }
  template <class Tl>
  __device__ void stage(Head& head, float* shared, int n0, int p0) const {
    head.first = n0 - p0 - (Tl::kBr - 1);  // the least j − p of the tile and the block
    for (int x = threadIdx.x; x < Tl::kDistances; x += Tl::kThreads) {
      const std::int64_t distance = std::int64_t(head.first) + x;
      const int bucket = formulas::t5_bucket(distance, bidirectional, num_buckets, max_distance);
      shared[x] = table[std::int64_t(bucket) * num_heads + head.h] * kLog2e;
    }
    head.staged = shared;
  }
};

}  // namespace

void flash_t5(const FlashLaunch& launch, const AttentionConfig& config) {
  check_t5_options(config.t5);
  const T5ScoreMod mod{config.t5_table, launch.args.H, static_cast<int>(config.t5.num_buckets),
                       static_cast<int>(config.t5.max_distance), config.t5.bidirectional};
  launch_flash_method(launch, mod, NoRotation{});
}

}  // namespace poslab::cuda::detail
