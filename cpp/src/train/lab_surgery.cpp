// The lab's model for position surgery (poslab/train/lab_surgery.hpp).
#include "poslab/train/lab_surgery.hpp"

#include <memory>

#include "poslab/models/lm.hpp"
#include "poslab/positions/position_methods.hpp"
#include "poslab/train/model.hpp"
#include "train/lab_batch.hpp"

namespace poslab::train {

SurgeryModel surgery_model(const LabCheckpoint& checkpoint,
                           const std::optional<RopeOptions>& scaling) {
  auto model = std::make_shared<Model>(checkpoint.model);
  const PositionMethod p = checkpoint.model.position;
  const bool rotates = position_method_info(p).kind == PositionKind::kRotation;
  require(!scaling || rotates, "rope",
          model->surgery_target().model +
              " has no rotation to scale: a scaling is for rotation methods' models");
  if (scaling) {
    RopeOptions rope = *scaling;
    rope.original_length = (long long)checkpoint.train_len;
    model->set_rope_scaling(rope);
  }
  SurgeryModel out;
  out.target = model->surgery_target();
  out.base = rotates ? checkpoint.model.base : 0.0;
  out.trained_context = (long long)checkpoint.train_len;
  out.losses = [&checkpoint, model](const std::vector<long long>& tokens,
                                    const PositionSurgery& surgery, SurgeryPrefix*) {
    model->set_surgery(surgery);
    const TensorF logits = model->logits(checkpoint.params, lab_batch(checkpoint.model, tokens, 0));
    const TensorF losses =
        next_token_losses(TensorF({tokens.size(), logits.dim(2)}, logits.data), tokens);
    return std::vector<double>(losses.data.begin(), losses.data.end());
  };
  return out;
}

}  // namespace poslab::train
