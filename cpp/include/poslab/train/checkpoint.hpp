// A lab checkpoint read back (Trainer::checkpoint's bytes, F32 or F16): its model, what it was
// trained on and its weights, checked against the model's layout before they are copied. What
// the text task's shipped model and the page's retrained ones are run from.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "poslab/positions/rope.hpp"
#include "poslab/train/config.hpp"
#include "poslab/train/model.hpp"

namespace poslab::train {

struct LabCheckpoint {
  ModelConfig model;
  Task task = Task::kCopy;
  std::size_t train_len = 0;
  Parameters params;
};

// Error naming `name` for bytes that are not a lab checkpoint: another file, a config the
// trainer would refuse, or a tensor missing, extra or of the wrong shape.
LabCheckpoint read_lab_checkpoint(const std::string& bytes, const std::string& name);

// A text model's mean loss (nats per byte) at each position 0..context−1 over every
// non-overlapping window of `context` bytes of `text` (at most `max_windows` of them, from the
// start), positions 0..context−1, with RoPE scaled by `scaling` (none by default). Error
// (field text) when the text is shorter than context + 1 bytes.
std::vector<double> text_loss_by_position(const LabCheckpoint& checkpoint, std::string_view text,
                                          std::size_t context, const RopeOptions& scaling = {},
                                          std::size_t max_windows = 256);

}  // namespace poslab::train
