// attention_flash, the fused kernels' entry point: checks the call, then hands it to the one
// position method it names (attention_flash_methods.cuh). The kernel is
// attention_flash_kernel.cuh; each method's policy and instantiations are in
// attention_flash_<method>.cu. Validated against poslab::attention (and poslab::rope_apply) in
// tests/cuda and poslab-bench-cuda.
#include <cuda_runtime.h>

#include <string>

#include "attention_check.hpp"
#include "attention_flash_methods.cuh"
#include "common.cuh"
#include "poslab/cuda/attention.hpp"

namespace poslab::cuda {
namespace {

// The position methods the kernel runs, one per call: each is its own instantiation.
struct FlashMethod {
  const char* name;
  bool (*named_by)(const AttentionConfig&);
  void (*launch)(const detail::FlashLaunch&, const AttentionConfig&);
};

constexpr FlashMethod kFlashMethods[] = {
    {"a score bias", [](const AttentionConfig& c) { return c.score_bias != PositionMethod::kNone; },
     detail::flash_score_bias},
    {"RoPE", [](const AttentionConfig& c) { return c.rope != nullptr; }, detail::flash_rope},
};

}  // namespace

void attention_flash(const void* q, const void* k, const void* v, void* out, DType dtype,
                     const AttentionDims& n, const AttentionConfig& config, int variant,
                     cudaStream_t stream) {
  const double scale = detail::check_attention(n, config);
  require(variant >= 2 && variant <= kAttentionVariants,
          "unknown fused attention variant " + std::to_string(variant) + " (2, 3 or 4)");
  require(dtype != DType::kF32, "flash attention runs on fp16 or bf16 storage (tensor cores)");
  require(n.d == 64 || n.d == 128,
          "flash attention supports head widths 64 and 128 (got " + std::to_string(n.d) + ")");
  require(config.bias == nullptr,
          "flash attention takes a position method (config.score_bias, rope), not a bias tensor: "
          "use attention_naive");
  require(n.H <= 65535 && n.B <= 65535, "flash attention: B and H must be at most 65535");
  for (const void* p : {q, k, v, static_cast<const void*>(out)}) {
    require(detail::aligned16(p), "flash attention needs 16-byte aligned q, k, v and out");
  }
  const FlashMethod* method = nullptr;
  std::string named;
  for (const FlashMethod& m : kFlashMethods) {
    if (!m.named_by(config)) continue;
    named += named.empty() ? m.name : std::string(" and ") + m.name;
    if (method != nullptr) {
      throw Error("flash attention runs one position method at a time (got " + named + ")");
    }
    method = &m;
  }
  const detail::FlashLaunch launch{
      {q, k, v, out, static_cast<int>(n.H), static_cast<int>(n.Lq), static_cast<int>(n.Lk),
       static_cast<float>(scale) * detail::kLog2e, detail::mask_args(config)},
      n,
      dtype,
      variant,
      stream};
  if (method != nullptr) {
    method->launch(launch, config);
  } else {
    detail::flash_without_position(launch, config);
  }
}

}  // namespace poslab::cuda
