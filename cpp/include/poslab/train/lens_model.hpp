// A lab checkpoint (`poslab train --checkpoint`) as the position lens sees it
// (poslab/analysis/lens_report.hpp): the trainer's own model, in float. Its positions move the
// logits unless its method reads only p_i − p_j (the table's kRelativeOnly), and may be
// shuffled where it reads them in any order (kReadsAnyOrder). The LensModel refers to
// `checkpoint`, which the caller keeps alive while it is used.
#pragma once

#include "poslab/analysis/lens_report.hpp"
#include "poslab/train/checkpoint.hpp"

namespace poslab::train {

LensModel lens_model(const LabCheckpoint& checkpoint);

}  // namespace poslab::train
