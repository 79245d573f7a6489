// A lab checkpoint (`poslab train --checkpoint`) as the position lens sees it
// (poslab/analysis/lens_report.hpp): the trainer's own model, in float. Its positions move the
// logits unless its method reads only p_i − p_j (the table's kRelativeOnly), and may be
// shuffled where it reads them in any order (kReadsAnyOrder). The LensModel refers to
// `checkpoint`, which the caller keeps alive while it is used. `scaling`: a rotation's model
// (a rotation method) with a long-context scaling (its scaling, factor and parameters; the original
// length is the trained context), as the text task's evaluation applies one
// (Model::set_rope_scaling); refused for the other methods.
#pragma once

#include <optional>

#include "poslab/analysis/lens_report.hpp"
#include "poslab/models/position_surgery.hpp"
#include "poslab/positions/rope.hpp"
#include "poslab/train/checkpoint.hpp"

namespace poslab::train {

// surgery: interventions inside every pass (Model::set_surgery), checked here.
LensModel lens_model(const LabCheckpoint& checkpoint,
                     const std::optional<RopeOptions>& scaling = std::nullopt,
                     const PositionSurgery& surgery = {});

}  // namespace poslab::train
