// A lab checkpoint (`poslab train --checkpoint`) as a position-surgery sweep sees it
// (poslab/analysis/surgery_sweep.hpp): the trainer's own model in float, the surgery applied
// inside its forward pass (Model::set_surgery). A rotation method's model takes every
// intervention; the others, head ablation. Its trained context is the checkpoint's training
// length. The SurgeryModel refers to `checkpoint`, which the caller keeps alive while it is
// used. `scaling`: as lens_model's (lens_model.hpp).
#pragma once

#include <optional>

#include "poslab/analysis/surgery_sweep.hpp"
#include "poslab/positions/rope.hpp"
#include "poslab/train/checkpoint.hpp"

namespace poslab::train {

SurgeryModel surgery_model(const LabCheckpoint& checkpoint,
                           const std::optional<RopeOptions>& scaling = std::nullopt);

}  // namespace poslab::train
