// Every score bias of the table in the fused kernel: its term (positions/score_bias.hpp) over the
// call's device parameters, the formula poslab::score_bias_tensor evaluates on the CPU. A relative
// term reads j − p only, and a key tile with a query block spans kBr + kBc − 1 distances, so each
// tile's values are computed once into shared memory and read per score.
#include <cstdint>

#include "attention_flash_kernel.cuh"
#include "poslab/positions/relative.hpp"
#include "poslab/positions/score_bias.hpp"

namespace poslab::cuda::detail {
namespace {

template <class Term>
struct TermScoreMod {
  Term term;

  static constexpr bool kModifies = true;
  template <class Tl>
  static constexpr int shared_floats() {
    return Tl::kDistances + 1;  // + 1 keeps what follows 8-byte aligned
  }
  struct Head {
    int h;
    const float* staged;  // b · log2(e) of distance first + x at staged[x]
    int first;
    __device__ float operator()(float s, int p, int j) const { return s + staged[j - p - first]; }
  };
  __device__ Head at_head(int h) const { return {h, nullptr, 0}; }
  template <class Tl>
  __device__ void stage(Head& head, float* shared, int n0, int p0) const {
    head.first = n0 - p0 - (Tl::kBr - 1);  // the least j − p of the tile and the block
    for (int x = threadIdx.x; x < Tl::kDistances; x += Tl::kThreads) {
      const std::int64_t distance = std::int64_t(head.first) + x;
      shared[x] = static_cast<float>(term.value(head.h, 0, distance)) * kLog2e;
    }
    head.staged = shared;
  }
};

}  // namespace

void flash_score_bias(const FlashLaunch& launch, const AttentionConfig& config) {
  const PositionMethodInfo& info = position_method_info(config.score_bias);
  require(supports(config.score_bias, kSupportCuda), "bias",
          std::string("the fused kernel does not compute ") + info.name + "'s bias");
  score_bias::TermShape shape = config.bias_shape;
  shape.heads = launch.args.H;
  if (config.score_bias == PositionMethod::kT5) {
    check_t5_options({shape.bidirectional, static_cast<long long>(shape.options[0]),
                      static_cast<long long>(shape.options[1])});
  }
  score_bias::with_term_type(info.term, [&](auto type) {
    using Term = typename decltype(type)::template With<float>;
    if constexpr (Term::kRelative) {
      require(Term::kTensors.empty() || config.bias_parameters != nullptr, "bias",
              std::string(info.name) + " needs its parameters on the device (bias_parameters)");
      launch_flash_method(launch, TermScoreMod<Term>{Term(config.bias_parameters, shape)},
                          NoRotation{});
    } else {
      throw Error(std::string(info.name) + "'s bias is not a function of j − p alone", "bias");
    }
  });
}

}  // namespace poslab::cuda::detail
