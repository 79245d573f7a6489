// What the trainer tests (train_trainer_test.cpp, train_text_test.cpp) share: the smallest
// model they train, so a run takes milliseconds and each test sets only what it is about.
#pragma once

#include "poslab/train/config.hpp"

namespace poslab::train {

// One layer, width 16, two heads, batches of 4; the task, lengths and steps are the caller's.
inline TrainConfig tiny_train_config(PositionMethod method) {
  TrainConfig c;
  c.position = method;
  c.layers = 1;
  c.width = 16;
  c.heads = 2;
  c.batch = 4;
  return c;
}

}  // namespace poslab::train
