// A model the analysis commands (`poslab lens`, `poslab surgery`) read: a Hugging Face
// checkpoint (GPT-2, GPT-NeoX, the Llama family) or a lab checkpoint, loaded once and kept
// alive while its lens and surgery adapters run over it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "poslab/analysis/lens_report.hpp"
#include "poslab/analysis/surgery_sweep.hpp"
#include "poslab/base/precision.hpp"
#include "poslab/models/position_surgery.hpp"
#include "rope_scaling_flags.hpp"

namespace poslab::cli {

struct ModelFiles {
  std::string weights, config;  // config: empty for GPT-2 (optional) and a lab checkpoint
};

struct LoadedModel {
  std::shared_ptr<const void> keep;
  LensModel lens;
  std::optional<SurgeryModel> surgery;  // none for GPT-2, whose positions are learned
  std::vector<std::string> notes;       // config keys the runtime does not read
};

// The model of `files` in `precision` (a lab checkpoint: float only), --rope-* replacing a RoPE
// model's scaling, its lens's passes under `surgery` (the surgery sweep adds its own). UsageError
// or Error naming what is wrong with the files.
LoadedModel load_model(const ModelFiles& files, Precision precision, const RopeScalingFlags& rope,
                       const PositionSurgery& surgery = {});

// The text's token ids from --tokens, --tokens-file (a 1-D .npy) or --text-file (a byte-level
// model's text: its bytes, at most `max_bytes`); `what` names the text in messages.
std::vector<long long> model_tokens(const std::string& tokens, const std::string& tokens_file,
                                    const std::string& text_file, std::size_t max_bytes,
                                    const char* what);

}  // namespace poslab::cli
