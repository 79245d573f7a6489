#include "poslab/train/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "poslab/base/errors.hpp"
#include "poslab/io/json_text.hpp"
#include "poslab/io/safetensors.hpp"
#include "train/text.hpp"

namespace poslab::train {

namespace {

// The caps validate() puts on a run, for a model read from a file.
constexpr std::size_t kMaxLayers = 16, kMaxWidth = 1024, kMaxPositions = 1 << 20;

std::size_t size_in(const nlohmann::json& j, const char* key, std::size_t lo, std::size_t hi,
                    const std::string& name) {
  require(j.contains(key) && j[key].is_number_unsigned(),
          name + ": the checkpoint's config has no whole number '" + key + "'");
  const auto v = j[key].get<std::size_t>();
  require(v >= lo && v <= hi, name + ": the checkpoint's " + key + " " + std::to_string(v) +
                                  " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                  "]");
  return v;
}

double number_in(const nlohmann::json& j, const char* key, const std::string& name) {
  require(j.contains(key) && j[key].is_number() && j[key].get<double>() > 0,
          name + ": the checkpoint's config has no positive number '" + key + "'");
  return j[key].get<double>();
}

ModelConfig model_of(const nlohmann::json& j, Task task, const std::string& name) {
  ModelConfig m;
  m.n_layer = size_in(j, "n_layer", 1, kMaxLayers, name);
  m.n_embd = size_in(j, "n_embd", 1, kMaxWidth, name);
  m.n_head = size_in(j, "n_head", 1, m.n_embd, name);
  m.n_inner = size_in(j, "n_inner", 1, 4 * kMaxWidth, name);
  m.vocab_size = size_in(j, "vocab_size", 1, 1 << 16, name);
  m.n_positions = size_in(j, "n_positions", 1, kMaxPositions, name);
  m.layer_norm_epsilon = number_in(j, "layer_norm_epsilon", name);
  m.base = number_in(j, "base", name);
  // Older checkpoints predate the zeroed-pair mask: every pair kept.
  if (j.contains("keep_fraction")) {
    require(j["keep_fraction"].is_number() && j["keep_fraction"].get<double>() >= 0 &&
                j["keep_fraction"].get<double>() <= 1,
            name + ": the checkpoint's keep_fraction must be a number in [0, 1]");
    m.keep_fraction = j["keep_fraction"].get<double>();
  }
  m.embed_scale = number_in(j, "embed_scale", name);
  m.t5_num_buckets = size_in(j, "t5_num_buckets", 1, 4096, name);
  m.t5_max_distance = size_in(j, "t5_max_distance", 1, kMaxPositions, name);
  // Older checkpoints predate attention sinks: none.
  if (j.contains("sinks")) {
    require(j["sinks"].is_boolean(), name + ": the checkpoint's sinks must be true or false");
    m.sinks = j["sinks"].get<bool>();
  }
  // Older checkpoints predate NoPE layers and the attention temperature: none.
  if (j.contains("nope_every")) m.nope_every = size_in(j, "nope_every", 0, m.n_layer, name);
  for (const auto& [key, value] : {std::pair{"attn_floor_scale", &m.attn_floor_scale},
                                   std::pair{"attn_scale", &m.attn_scale}}) {
    if (!j.contains(key)) continue;
    require(j[key].is_number() && std::isfinite(j[key].get<double>()) && j[key].get<double>() >= 0,
            name + ": the checkpoint's " + key + " must be a number >= 0");
    *value = j[key].get<double>();
  }
  if (j.contains("cope_npos_max")) {
    m.cope_npos_max = size_in(j, "cope_npos_max", 2, kMaxPositions, name);
  }
  if (j.contains("abacus_max_offset")) {
    m.abacus_max_offset = size_in(j, "abacus_max_offset", 0, kMaxPositions, name);
  }
  require(j.contains("position") && j["position"].is_string(),
          name + ": the checkpoint's config names no position method");
  m.position = parse_position_method(j["position"].get<std::string>(), kSupportTrainer,
                                     "position method", "position");
  require(m.n_embd % m.n_head == 0,
          name + ": the checkpoint's width is not divisible by its heads");
  const bool rotation = position_method_info(m.position).kind == PositionKind::kRotation;
  require(!rotation || (m.n_embd / m.n_head) % 2 == 0,
          name + ": a rotation needs an even head width");
  require(rotation || m.nope_every == 0, name + ": NoPE layers need a rotation method");
  // Older checkpoints predate index hints: none.
  const std::size_t hints =
      j.contains("index_hints") ? size_in(j, "index_hints", 0, kMaxIndexHints, name) : 0;
  require(hints == 0 || task == Task::kAddition,
          name + ": the checkpoint's index hints are for the addition task");
  const Vocabulary vocab = vocabulary(task, hints);
  const std::size_t symbols = vocab.symbols;
  require(!j.contains("symbols") ||
              (j["symbols"].is_number_unsigned() && j["symbols"].get<std::size_t>() == symbols),
          name + ": the checkpoint's symbols " +
              (j.contains("symbols") ? j["symbols"].dump() : "") + " are not its task's (" +
              std::to_string(symbols) + ")");
  require(m.vocab_size == vocab.size(), name + ": the checkpoint's vocabulary (" +
                                            std::to_string(m.vocab_size) + ") is not its task's (" +
                                            std::to_string(vocab.size()) + ")");
  return m;
}

}  // namespace

LabCheckpoint read_lab_checkpoint(const std::string& bytes, const std::string& name) {
  const SafetensorsFile file = parse_safetensors(bytes, name);
  const auto format = file.metadata.find("format");
  const auto config = file.metadata.find("config");
  require(
      format != file.metadata.end() && format->second == "poslab-train" &&
          config != file.metadata.end(),
      name + ": not a lab checkpoint (its __metadata__ has no format 'poslab-train' and config)");
  const nlohmann::json j = parse_json_text(config->second, name + ": the checkpoint's config");
  require(j.is_object(), name + ": the checkpoint's config is not a JSON object");
  require(j.contains("task") && j["task"].is_string(), name + ": the checkpoint names no task");
  LabCheckpoint out;
  out.task = parse_name(kTaskNames, j["task"].get<std::string>(), "task", "task");
  out.train_len = size_in(j, "train_len", 1, kMaxTextContext, name);
  out.model = model_of(j, out.task, name);
  out.params = Parameters(out.model);
  for (const ParamInfo& info : out.params.info()) {
    const auto found = file.tensors.find(info.name);
    require(found != file.tensors.end(), name + ": the checkpoint has no tensor " + info.name);
    require(found->second.shape == info.shape, name + ": tensor " + info.name + " has shape " +
                                                   shape_string(found->second.shape) +
                                                   ", the model needs " + shape_string(info.shape));
    std::copy(found->second.data.begin(), found->second.data.end(),
              out.params.data() + info.offset);
  }
  require(file.tensors.size() == out.params.info().size(),
          name + ": the checkpoint has tensors its model does not use");
  try {
    require_embedding_scale_fits(out.model.embed_scale, out.params, out.model.n_embd);
  } catch (const Error& e) {
    throw Error(name + ": the checkpoint's " + e.what(), "embedScale");
  }
  return out;
}

std::vector<double> text_loss_by_position(const LabCheckpoint& checkpoint, std::string_view text,
                                          std::size_t context, const RopeOptions& scaling,
                                          std::size_t max_windows) {
  require(checkpoint.task == Task::kText, "model",
          "the checkpoint is of a synthetic task, not a text model");
  require(
      scaling.scaling == RopeScaling::kNone || checkpoint.model.position == PositionMethod::kRope,
      "scaling", "only a RoPE model's rotation can be scaled");
  require(context >= 1 && context <= kMaxTextContext, "context",
          "the context must be in [1, " + std::to_string(kMaxTextContext) + "]");
  require(!has_learned_table(checkpoint.model.position) || context <= checkpoint.model.n_positions,
          "context",
          "learned positions have no row past their table's " +
              std::to_string(checkpoint.model.n_positions));
  Model model(checkpoint.model);
  model.set_rope_scaling(scaling);
  const std::size_t windows =
      std::min(max_windows, text.size() > context ? (text.size() - 1) / context : 0);
  Rng unused(0);  // index positions draw nothing
  return mean_loss_by_position(model, checkpoint.params, text, context,
                               std::max<std::size_t>(1, windows), 0, unused);
}

}  // namespace poslab::train
