// The RoPE language models as a position-surgery sweep sees them
// (poslab/analysis/surgery_sweep.hpp): GPT-NeoX and the Llama family, whose passes reuse the
// unmodified pass's residual stream below the first layer an intervention changes. The
// SurgeryModel refers to `weights`, which the caller keeps alive while it is used.
#pragma once

#include <optional>

#include "poslab/analysis/surgery_sweep.hpp"
#include "poslab/base/precision.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "poslab/models/llama.hpp"

namespace poslab {

// rope: a rotation in place of the config's (RopeLmOptions::rope), e.g. a scaling.
SurgeryModel surgery_model(const GptNeoxWeights& weights, Precision precision,
                           const std::optional<RopeOptions>& rope = std::nullopt);
SurgeryModel surgery_model(const LlamaWeights& weights, Precision precision,
                           const std::optional<RopeOptions>& rope = std::nullopt);

}  // namespace poslab
