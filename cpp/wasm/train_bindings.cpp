// The training module (`poslab-train`): the length-generalisation lab's Trainer for the page's
// training workers, one run per instance. No math here: options in, the core's results out,
// every Error as { error, field } (guard.hpp). web/src/core/train.js wraps it.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <optional>
#include <string>

#include "guard.hpp"
#include "js_convert.hpp"
#include "js_object.hpp"
#include "lens_js.hpp"
#include "poslab/train/checkpoint.hpp"
#include "poslab/train/lab_surgery.hpp"
#include "poslab/train/lens_model.hpp"
#include "poslab/train/trainer.hpp"
#include "surgery_js.hpp"

namespace poslab::wasm {
namespace {

using emscripten::val;
using namespace poslab::train;

val bytes_js(const std::string& bytes) {
  val view(emscripten::typed_memory_view(bytes.size(),
                                         reinterpret_cast<const std::uint8_t*>(bytes.data())));
  return val::global("Uint8Array").new_(view);  // a copy the heap's growth cannot move
}

val ints_js(const std::vector<std::int32_t>& values) {
  val view(emscripten::typed_memory_view(values.size(), values.data()));
  return val::global("Int32Array").new_(view);
}

std::size_t size_field(const val& js, const char* name, std::size_t fallback) {
  const long long v = integer_field(js, name, static_cast<long long>(fallback));
  require(v >= 0, name, std::string(name) + " must be >= 0, got " + std::to_string(v));
  return static_cast<std::size_t>(v);
}

TrainConfig to_train_config(const val& js) {
  const val o = to_options(js, "config", {"task",         "position",      "randomizedPositions",
                                          "trainLen",     "testLen",       "coupledPositions",
                                          "layers",       "width",         "heads",
                                          "batch",        "steps",         "lr",
                                          "warmupSteps",  "seed",          "embedScale",
                                          "keepFraction", "nposMax",       "abacusMaxOffset",
                                          "sinks",        "nopeEvery",     "attnFloorScale",
                                          "attnScale",    "evalPositions", "evalExamples",
                                          "text",         "padOperands",   "indexHints",
                                          "foxDecayMax"});
  TrainConfig c;
  c.task =
      parse_name(kTaskNames, string_field(o, "task", name_of(kTaskNames, c.task)), "task", "task");
  c.position =
      parse_position_method(string_field(o, "position", name_of(kPositionMethodNames, c.position)),
                            kSupportTrainer, "position method", "position");
  c.randomized_positions = size_field(o, "randomizedPositions", c.randomized_positions);
  c.coupled_positions = size_field(o, "coupledPositions", c.coupled_positions);
  c.pad_operands = bool_field(o, "padOperands", c.pad_operands);
  c.index_hints = size_field(o, "indexHints", c.index_hints);
  c.train_len = size_field(o, "trainLen", c.train_len);
  if (!field(o, "testLen").isUndefined()) c.test_len = size_field(o, "testLen", 0);
  c.layers = size_field(o, "layers", c.layers);
  c.width = size_field(o, "width", c.width);
  c.heads = size_field(o, "heads", c.heads);
  c.batch = size_field(o, "batch", default_batch(c.task));
  c.steps = size_field(o, "steps", default_steps(c.task));
  c.lr = number_field(o, "lr", c.lr);
  c.warmup_steps = size_field(o, "warmupSteps", c.warmup_steps);
  if (!field(o, "seed").isUndefined()) c.seed = seed_field(o, "seed");
  c.embed_scale = number_field(o, "embedScale", default_embed_scale(c.position));
  if (!field(o, "keepFraction").isUndefined()) {
    c.keep_fraction = number_field(o, "keepFraction", 1.0);
  }
  if (!field(o, "nposMax").isUndefined()) c.npos_max = size_field(o, "nposMax", 0);
  if (!field(o, "abacusMaxOffset").isUndefined()) {
    c.abacus_max_offset = size_field(o, "abacusMaxOffset", 0);
  }
  if (!field(o, "foxDecayMax").isUndefined()) {
    c.fox_decay_max = number_field(o, "foxDecayMax", 0.0);
  }
  c.sinks = bool_field(o, "sinks", c.sinks);
  c.nope_every = size_field(o, "nopeEvery", c.nope_every);
  c.attn_floor_scale = number_field(o, "attnFloorScale", c.attn_floor_scale);
  c.attn_scale = number_field(o, "attnScale", c.attn_scale);
  const std::string eval = string_field(o, "evalPositions", "");
  if (!eval.empty()) {
    c.eval_positions =
        parse_name(kEvalPositionsNames, eval, "evaluation positions", "evalPositions");
  }
  c.eval_examples = size_field(o, "evalExamples", c.eval_examples);
  if (!field(o, "text").isUndefined()) {
    auto text = std::make_shared<std::string>();
    copy_bytes(field(o, "text"), "text", *text);
    c.text = std::move(text);
  }
  return c;
}

val config_js(const TrainConfig& c) {
  return js_object(
      {{"task", std::string(name_of(kTaskNames, c.task))},
       {"position", std::string(name_of(kPositionMethodNames, c.position))},
       {"randomizedPositions", double(c.randomized_positions)},
       {"coupledPositions", double(c.coupled_positions)},
       {"padOperands", c.pad_operands},
       {"indexHints", double(c.index_hints)},
       {"trainLen", double(c.train_len)},
       {"testLen", double(test_len_of(c))},
       {"layers", double(c.layers)},
       {"width", double(c.width)},
       {"heads", double(c.heads)},
       {"batch", double(c.batch)},
       {"steps", double(c.steps)},
       {"lr", c.lr},
       {"warmupSteps", double(c.warmup_steps)},
       {"seed", double(c.seed)},
       {"embedScale", c.embed_scale},
       {"sinks", c.sinks},
       {"nopeEvery", double(c.nope_every)},
       {"attnFloorScale", c.attn_floor_scale},
       {"attnScale", c.attn_scale},
       {"evalPositions", std::string(name_of(kEvalPositionsNames, eval_positions_of(c)))},
       {"evalExamples", double(c.eval_examples)}});
}

class TrainRun {
 public:
  explicit TrainRun(TrainConfig c) : trainer_(std::move(c)) {}

  val config() const { return config_js(trainer_.config()); }

  val model_config() const {
    const ModelConfig& m = trainer_.model_config();
    const Vocabulary v = vocabulary(trainer_.config().task, trainer_.config().index_hints);
    return js_object({{"nLayer", double(m.n_layer)},
                      {"nEmbd", double(m.n_embd)},
                      {"nHead", double(m.n_head)},
                      {"nInner", double(m.n_inner)},
                      {"vocabSize", double(m.vocab_size)},
                      {"nPositions", double(m.n_positions)},
                      {"position", std::string(name_of(kPositionMethodNames, m.position))},
                      {"embedScale", m.embed_scale},
                      {"vocabulary", js_object({{"symbols", double(v.symbols)},
                                                {"bos", v.bos},
                                                {"sep", v.sep},
                                                {"eos", v.eos},
                                                {"pad", v.pad},
                                                {"size", double(v.size())}})}});
  }

  // Up to `count` more steps (never past the budget): their losses.
  val step(val count) {
    return guarded([&] {
      const long long n = to_integer(count, "count");
      require(n >= 0, "count", "count must be >= 0");
      std::vector<double> losses;
      const std::size_t left = trainer_.config().steps - trainer_.steps_done();
      for (std::size_t s = 0; s < std::min<std::size_t>(left, static_cast<std::size_t>(n)); ++s) {
        losses.push_back(trainer_.step());
      }
      return to_js(losses);
    });
  }

  val progress() const {
    return js_object({{"stepsDone", double(trainer_.steps_done())},
                      {"tokensSeen", trainer_.tokens_seen()},
                      {"flopsSpent", trainer_.flops_spent()}});
  }

  val evaluate() {
    return guarded([&] {
      const EvalResult r = trainer_.evaluate();
      val acc = val::object(), tokens = val::object();
      for (std::size_t L = 1; L <= r.accuracy_by_length.size(); ++L) {
        acc.set(std::to_string(L), r.accuracy_by_length[L - 1]);
        tokens.set(std::to_string(L), to_js(r.token_accuracy_by_position[L - 1])["data"]);
      }
      val o =
          js_object({{"accuracyByLength", acc},
                     {"tokenAccuracyByPosition", tokens},
                     {"evalPositions", std::string(name_of(kEvalPositionsNames, r.positions))}});
      // The text task's loss per byte by context (null where a learned table has no row).
      if (r.text) {
        val rows = val::array();
        for (const ContextLoss& row : r.text->by_context) {
          rows.call<void>("push", js_object({{"context", double(row.context)},
                                             {"loss", row.loss ? val(*row.loss) : val::null()}}));
        }
        o.set("lossByContext", rows);
      }
      return o;
    });
  }

  val attention_example(val length, val index) {
    return guarded([&] {
      const long long L = to_integer(length, "length"), i = to_integer(index, "index");
      require(L >= 1, "length", "length must be >= 1");
      require(i >= 0, "index", "index must be >= 0");
      const AttentionExample ex =
          trainer_.attention_example(static_cast<std::size_t>(L), static_cast<std::size_t>(i));
      const val maps = to_js(ex.maps);
      val o = js_object({{"tokens", ints_js(ex.tokens)},
                         {"positions", ints_js(ex.positions)},
                         {"predictions", ints_js(ex.predictions)},
                         {"answerStart", double(ex.answer_start)},
                         {"maps", maps["data"]},
                         {"shape", maps["shape"]}});
      // FIRE: the bias the model added to this example's scores, shaped like the maps.
      const ModelConfig& m = trainer_.model_config();
      if (m.position == PositionMethod::kFire) {
        o.set("fireBias", to_js(model_score_bias(m, trainer_.parameters(), ex.positions))["data"]);
      }
      return o;
    });
  }

  // result.json's text (the page parses it): the same keys as the CLI's.
  val result(val wall_time_s) {
    return guarded([&] {
      const double wall = to_number(wall_time_s, "wallTimeS");
      require(wall >= 0, "wallTimeS", "wallTimeS must be >= 0");
      return val(trainer_.result_json(trainer_.evaluate(), wall));
    });
  }

  val checkpoint() const {
    return guarded([&] { return bytes_js(trainer_.checkpoint()); });
  }

  val dump() {
    return guarded([&] {
      val o = val::object();
      for (const auto& [name, bytes] : trainer_.dump()) o.set(name, bytes_js(bytes));
      return o;
    });
  }

 private:
  Trainer trainer_;
};

val train_create_js(val config) {
  return guarded([&] { return val(TrainRun(to_train_config(config))); });
}

// A run's defaults (those of copy and a method at kDefaultEmbedScale), and the lab's table
// they come from: steps and batch by task, the embedding scale by method (train/config.hpp).
val train_defaults_js() {
  val defaults = config_js(TrainConfig{});
  val steps = val::object(), batches = val::object(), scales = val::object();
  for (const TaskDefaults& d : kTaskDefaults) {
    steps.set(name_of(kTaskNames, d.task), double(d.steps));
    batches.set(name_of(kTaskNames, d.task), double(d.batch));
  }
  for (const auto& m : kPositionMethodNames) scales.set(m.name, default_embed_scale(m.value));
  defaults.set("stepsByTask", steps);
  defaults.set("batchByTask", batches);
  defaults.set("embedScaleByMethod", scales);
  return defaults;
}

// A text model's loss by position (checkpoint: its .safetensors bytes, F32 or F16) on windows
// of `context` bytes of `text` (every non-overlapping one, at most maxWindows), RoPE scaled as
// asked at its trained length: { losses: Float64Array (context), trainLen, position }.
val text_loss_js(val checkpoint, val text, val options) {
  return guarded([&] {
    std::string weights, bytes;
    copy_bytes(checkpoint, "checkpoint", weights);
    copy_bytes(text, "text", bytes);
    const val o = to_options(options, "textLoss", {"context", "scaling", "factor", "maxWindows"});
    const LabCheckpoint model = read_lab_checkpoint(weights, "checkpoint");
    RopeOptions rope;
    rope.scaling = parse_rope_scaling(string_field(o, "scaling", "none"));
    rope.factor = number_field(o, "factor", 1.0);
    rope.original_length = static_cast<long long>(model.train_len);
    const std::vector<double> losses =
        text_loss_by_position(model, bytes, size_field(o, "context", model.train_len), rope,
                              size_field(o, "maxWindows", 256));
    return js_object(
        {{"losses", to_js(losses)["data"]},
         {"trainLen", double(model.train_len)},
         {"position", std::string(name_of(kPositionMethodNames, model.model.position))}});
  });
}

// The lens's `rope` on a lab model: { scaling, factor, … } as the core module's rope options
// take them (the base, pairing and original length are the model's); undefined: none.
std::optional<RopeOptions> lab_scaling(const val& rope) {
  if (rope.isUndefined()) return std::nullopt;
  return to_rope_options(rope);
}

// The lens's tokens: an Int32Array (field "tokens").
std::vector<long long> lab_token_ids(const val& tokens) {
  require(tokens.instanceof (val::global("Int32Array")), "tokens", "tokens must be an Int32Array");
  const std::vector<int> ids = emscripten::convertJSArrayToNumberVector<int>(tokens);
  return std::vector<long long>(ids.begin(), ids.end());
}

// The position lens on a lab checkpoint's bytes (read_lab_checkpoint) and token ids
// (Int32Array; a byte-level text model's are the text's bytes): lens.json's report as an object;
// options.surgery: interventions inside every pass.
val text_lens_js(val checkpoint, val tokens, val options) {
  return guarded([&] {
    std::string weights;
    copy_bytes(checkpoint, "checkpoint", weights);
    const LensCall call = lens_call(options, "textLens", "the lab's checkpoint");
    require(call.precision == Precision::kFloat, "precision", "the lab's model runs in float only");
    const std::vector<long long> ids = lab_token_ids(tokens);
    const LabCheckpoint model = read_lab_checkpoint(weights, "checkpoint");
    return lens_js(lens_model(model, lab_scaling(call.rope), call.surgery), ids, call.settings);
  });
}

// One head's attention map on a lab checkpoint: options { layer, head, rope, surgery }.
val text_lens_map_js(val checkpoint, val tokens, val options) {
  return guarded([&] {
    std::string weights;
    copy_bytes(checkpoint, "checkpoint", weights);
    const LensMapCall call = lens_map_call(options, "textLensMap");
    const std::vector<long long> ids = lab_token_ids(tokens);
    const LabCheckpoint model = read_lab_checkpoint(weights, "checkpoint");
    return lens_map_js(lens_model(model, lab_scaling(call.rope), call.surgery), ids, call);
  });
}

// The position-surgery sweep on a lab checkpoint and token ids (Int32Array), as `poslab surgery
// --weights <lab checkpoint>`: surgery.json's text. options: surgery_js.hpp's, float only; rope:
// a scaling, as the lens's.
val text_surgery_js(val checkpoint, val tokens, val options) {
  return guarded([&] {
    std::string weights;
    copy_bytes(checkpoint, "checkpoint", weights);
    const SurgeryCall call = surgery_call(options, "textSurgery");
    require(call.precision == Precision::kFloat, "precision", "the lab's model runs in float only");
    const std::vector<long long> ids = lab_token_ids(tokens);
    const LabCheckpoint model = read_lab_checkpoint(weights, "checkpoint");
    const std::optional<RopeOptions> scaling = lab_scaling(call.rope);
    return val(surgery_text(surgery_model(model, scaling), ids, call, "the lab's checkpoint",
                            [&] { return lens_model(model, scaling); }));
  });
}

val train_names_js() {
  return js_object({{"tasks", names_js(kTaskNames)},
                    {"positions", names_js(kPositionMethodNames)},
                    {"evalPositions", names_js(kEvalPositionsNames)}});
}

}  // namespace
}  // namespace poslab::wasm

EMSCRIPTEN_BINDINGS(poslab_train) {
  using namespace emscripten;
  using namespace poslab::wasm;
  class_<TrainRun>("TrainRun")
      .function("config", &TrainRun::config)
      .function("modelConfig", &TrainRun::model_config)
      .function("step", &TrainRun::step)
      .function("progress", &TrainRun::progress)
      .function("evaluate", &TrainRun::evaluate)
      .function("attentionExample", &TrainRun::attention_example)
      .function("result", &TrainRun::result)
      .function("checkpoint", &TrainRun::checkpoint)
      .function("dump", &TrainRun::dump);
  function("trainCreate", &train_create_js);
  function("trainDefaults", &train_defaults_js);
  function("trainNames", &train_names_js);
  function("textLoss", &text_loss_js);
  function("textLens", &text_lens_js);
  function("textLensMap", &text_lens_map_js);
  function("textSurgery", &text_surgery_js);
}
