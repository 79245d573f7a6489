// The language models as the position lens sees them (poslab/analysis/lens_report.hpp): GPT-2
// (learned positions: the shift moves its logits), GPT-NeoX and the Llama family (RoPE: their
// frequency bands, and a shift that leaves the logits unless the scaling is dynamic). The
// LensModel refers to `weights`, which the caller keeps alive while it is used.
#pragma once

#include <optional>

#include "poslab/analysis/lens_report.hpp"
#include "poslab/base/precision.hpp"
#include "poslab/models/gpt2.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "poslab/models/llama.hpp"

namespace poslab {

LensModel lens_model(const Gpt2Weights& weights, Precision precision);
// rope: a rotation in place of the config's (RopeLmOptions::rope), e.g. the model with a
// scaling it was not trained with; the bands are then read against its frequencies.
// surgery: interventions inside every pass (position_surgery.hpp), the bands read against the
// base it sets; checked by the first pass.
LensModel lens_model(const GptNeoxWeights& weights, Precision precision,
                     const std::optional<RopeOptions>& rope = std::nullopt,
                     const PositionSurgery& surgery = {});
LensModel lens_model(const LlamaWeights& weights, Precision precision,
                     const std::optional<RopeOptions>& rope = std::nullopt,
                     const PositionSurgery& surgery = {});

}  // namespace poslab
