// The lab's configuration checks and what follows from a configuration (vocabulary, sequence
// lengths, the model's shape). Every check runs before anything is allocated.
#include "poslab/train/config.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "poslab/base/errors.hpp"
#include "poslab/base/format.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/positions/formulas.hpp"
#include "poslab/train/model.hpp"
#include "train/text.hpp"

namespace poslab::train {

Vocabulary vocabulary(Task task, std::size_t index_hints) {
  Vocabulary v;
  if (task == Task::kText) {
    v.symbols = 256;
    v.specials = false;
    v.bos = v.sep = v.eos = v.pad = -1;
    return v;
  }
  // The digits, and '+' and the index hints for addition.
  v.symbols = task == Task::kAddition ? 11 + index_hints : 10;
  const auto s = static_cast<std::int32_t>(v.symbols);
  v.bos = s;
  v.sep = s + 1;
  v.eos = s + 2;
  v.pad = s + 3;
  return v;
}

std::size_t sequence_length(Task task, std::size_t length, std::size_t index_hints) {
  // BOS x SEP y EOS; addition: x = a + b (two numbers of `length` digits), y has length + 1.
  if (task == Task::kText) return length;  // a window of bytes
  if (task != Task::kAddition) return 2 * length + 3;
  return 3 * length + 5 + (index_hints > 0 ? 3 * length + 1 : 0);  // a hint per digit
}

std::size_t test_len_of(const TrainConfig& c) {
  if (c.task == Task::kText) {
    return c.test_len.value_or(std::min(16 * c.train_len, kMaxTextContext));  // N ≤ 512 < 4096
  }
  return c.test_len.value_or(4 * c.train_len);
}

std::size_t eval_batch_of(const TrainConfig& c) {
  if (c.task != Task::kText) return c.eval_examples;
  return text_windows_per_batch(test_len_of(c));
}

EvalPositions eval_positions_of(const TrainConfig& c) {
  if (c.eval_positions) return *c.eval_positions;
  return c.randomized_positions > 0 ? EvalPositions::kRandom : EvalPositions::kIndex;
}

namespace {

// Whether the method's row has the option `name` (keepFraction: the zeroed-pair mask of
// rope.hpp; nposMax: CoPE's), and that option of the table.
const PositionOption* table_option(PositionMethod method, const char* name) {
  const PositionMethodInfo& info = position_method_info(method);
  for (std::size_t k = 0; k < info.option_count; ++k) {
    if (std::string(info.options[k].name) == name) return &info.options[k];
  }
  return nullptr;
}
bool takes_keep_fraction(PositionMethod method) {
  return table_option(method, "keepFraction") != nullptr;
}
// The trainer's methods with the option `name`.
std::vector<Named<PositionMethod>> methods_taking(const char* name) {
  std::vector<Named<PositionMethod>> names;
  for (const Named<PositionMethod>& m : kPositionMethodNames) {
    if (table_option(m.value, name) != nullptr) names.push_back(m);
  }
  return names;
}

// The trainer's rotations: what NoPE layers leave out.
std::vector<Named<PositionMethod>> rotation_methods() {
  std::vector<Named<PositionMethod>> names;
  for (const Named<PositionMethod>& m : kPositionMethodNames) {
    if (position_method_info(m.value).kind == PositionKind::kRotation) names.push_back(m);
  }
  return names;
}

// Caps that keep a run inside the wasm heap and a browser's patience; the element cap below
// is the real memory bound.
constexpr std::size_t kMaxLength = 512;
constexpr std::size_t kMaxLayers = 16;
constexpr std::size_t kMaxWidth = 1024;
constexpr std::size_t kMaxBatch = 1024;
constexpr std::size_t kMaxSteps = 10'000'000;
constexpr std::size_t kMaxPositions = 1 << 20;

void require_range(std::size_t value, std::size_t lo, std::size_t hi, const char* field,
                   const char* what) {
  require(value >= lo && value <= hi, field,
          std::string(what) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
              "], got " + std::to_string(value));
}

// A MAX option whose 0 means "off" (randomised and coupled positions): the message gives the
// whole rule, so 0 is not a surprise after "must be in [lo, hi]".
void require_off_or_range(std::size_t value, std::size_t lo, const char* field, const char* what,
                          const char* lo_is) {
  require(value >= lo && value <= kMaxPositions, field,
          std::string(what) + " must be 0 (off) or in [" + std::to_string(lo) + ", " +
              std::to_string(kMaxPositions) + "] (at least " + lo_is + ", " + std::to_string(lo) +
              "), got " + std::to_string(value));
}

void require_positive_finite(double value, const char* field, const char* what) {
  require(std::isfinite(value) && value > 0, field,
          std::string(what) + " must be a positive finite number, got " + format_number(value));
}

}  // namespace

void validate(const TrainConfig& c) {
  require(supports(c.position, kSupportTrainer), "position",
          std::string("the trainer has no ") + to_string(c.position) + " positions (expected " +
              name_list(kPositionMethodNames) + ")");
  const bool text = c.task == Task::kText;
  require_range(c.train_len, 1, kMaxLength, "trainLen", "the training length");
  require(c.test_len != std::size_t{0}, "testLen",
          std::string("the test length must be at least 1 (leave it out for ") +
              (text ? "16" : "4") + " x the training length)");
  const std::size_t m = test_len_of(c);
  if (text) {
    require_range(m, c.train_len, kMaxTextContext, "testLen",
                  "the text task's test context (at least the training length)");
    check_text(c);
  } else {
    require(c.text == nullptr, "text", "only the text task reads a text");
    require_range(m, 1, kMaxLength, "testLen", "the test length");
  }
  require_range(c.layers, 1, kMaxLayers, "layers", "the number of layers");
  require_range(c.width, 1, kMaxWidth, "width", "the width");
  require_range(c.heads, 1, c.width, "heads", "the number of heads");
  require(c.width % c.heads == 0, "heads",
          "the width (" + std::to_string(c.width) + ") must be divisible by the number of heads (" +
              std::to_string(c.heads) + ")");
  const std::size_t head_dim = c.width / c.heads;
  const bool rotation = position_method_info(c.position).kind == PositionKind::kRotation;
  require(!rotation || head_dim % 2 == 0, "heads",
          std::string(to_string(c.position)) + " rotates pairs: the head width (width / heads = " +
              std::to_string(head_dim) + ") must be even");
  require(c.position != PositionMethod::kSinusoidal || c.width % 2 == 0, "width",
          "the sinusoidal table needs an even width, got " + std::to_string(c.width));
  require_range(c.batch, 1, kMaxBatch, "batch", "the batch size");
  require_range(c.steps, 0, kMaxSteps, "steps", "the number of steps");
  require(c.threads >= 1, "threads", "threads must be at least 1");
  require_positive_finite(c.lr, "lr", "the learning rate");
  require_positive_finite(c.embed_scale, "embedScale", "the embedding scale");
  require(c.eval_examples >= 1 && c.eval_examples <= 4096, "evalExamples",
          "the examples per evaluated length must be in [1, 4096], got " +
              std::to_string(c.eval_examples));
  for (double beta : {c.beta1, c.beta2}) {
    require(std::isfinite(beta) && beta >= 0 && beta < 1, "beta", "Adam's betas must be in [0, 1)");
  }
  require(std::isfinite(c.weight_decay) && c.weight_decay >= 0, "weightDecay",
          "the weight decay must be finite and >= 0");
  require_positive_finite(c.clip_norm, "clipNorm", "the clipping norm");
  require_positive_finite(c.adam_eps, "adamEps", "Adam's epsilon");

  const std::size_t longest = sequence_length(c.task, std::max(c.train_len, m), c.index_hints);
  if (supports(c.position, kOwnPositions)) {
    const std::string method = to_string(c.position);
    require(c.task != Task::kText, "position",
            method + " numbers the digits of a number: it is for the synthetic tasks, not text");
    require(c.randomized_positions == 0 && c.coupled_positions == 0,
            c.randomized_positions > 0 ? "randomizedPositions" : "coupledPositions",
            method +
                " chooses its own positions (each digit's place in its number, offset in "
                "training): give it neither randomised nor coupled positions");
  }
  if (c.randomized_positions > 0) {
    require(reads_positions(c.position), "randomizedPositions",
            "randomised positions need a position method that reads them: '" +
                std::string(to_string(c.position)) + "' sees no positions");
    require_off_or_range(c.randomized_positions, longest, "randomizedPositions",
                         "randomised positions MAX", "the longest sequence");
  }
  require(!c.pad_operands || c.task == Task::kAddition, "padOperands",
          "zero-padding operands is for the addition task (its two numbers)");
  if (c.index_hints > 0) {
    require(c.task == Task::kAddition, "indexHints",
            "index hints are for the addition task (a hint before each digit names its "
            "significance)");
    require(c.coupled_positions == 0 && !supports(c.position, kOwnPositions), "indexHints",
            c.coupled_positions > 0
                ? "index hints and position coupling are two ways of lining up digits: give one"
                : to_string(c.position) + std::string(" numbers the runs of digits, which index "
                                                      "hints break up: give it no hints"));
    // The sum's digits + 1 hints must fit, at the longest tested length; each is a symbol, a
    // row of the embedding and of the logits.
    const std::size_t lo = std::max(c.train_len, m) + 1;
    require(c.index_hints >= lo && c.index_hints <= kMaxIndexHints, "indexHints",
            "index hints K must be 0 (off) or in [" + std::to_string(lo) + ", " +
                std::to_string(kMaxIndexHints) + "] (at least the most digits + 1), got " +
                std::to_string(c.index_hints));
  }
  if (c.coupled_positions > 0) {
    require(c.task == Task::kAddition, "coupledPositions",
            "position coupling is for the addition task (digits of the same significance share a "
            "position)");
    require(c.randomized_positions == 0, "coupledPositions",
            "position coupling and randomised positions are two ways of choosing positions: give "
            "one");
    // An operand's digit can sit at a later position than the answer digit that reads it: the
    // methods that assume a key's position is at most its query's are refused.
    require(supports(c.position, kSupportCoupled), "coupledPositions",
            "position coupling needs " + name_list(position_method_names<kSupportCoupled>()) +
                " positions, not " + to_string(c.position) +
                (supports(c.position, kReadsAnyOrder)
                     ? " (it sees no positions)"
                     : " (it assumes positions rise along a sequence)"));
    const std::size_t digits = std::max(c.train_len, m);
    require_off_or_range(c.coupled_positions, digits + 3, "coupledPositions",
                         "coupled positions MAX", "the most digits + 3");
  }
  const bool rotates = position_method_info(c.position).kind == PositionKind::kRotation;
  const double scale_base = rotates ? rotation_defaults(c.position).scale_base : 0.0;
  if (scale_base > 0.0) {
    // A decay scales a query by ζ^e and a key by ζ^−e, e = (p − ⌈total/2⌉)/s, so both grow
    // without bound in a row's positions (up to MAX − 1 when randomised). At position 0 the
    // first pair's query scale is the largest and its key scale the smallest of the row: both
    // must stay well inside float32's range, or the scores overflow or vanish.
    const std::int64_t total = static_cast<std::int64_t>(std::max(c.randomized_positions, longest));
    const int d = static_cast<int>(head_dim);
    const double query = formulas::decay_scale(0, d, 0, total, scale_base, false);
    const double key = formulas::decay_scale(0, d, 0, total, scale_base, true);
    require(query <= 1e30 && key >= 1e-30,
            c.randomized_positions > 0 ? "randomizedPositions" : "testLen",
            std::string(to_string(c.position)) + "'s scale reaches " + format_number(query) +
                " (and " + format_number(key) + ") over positions 0.." + std::to_string(total - 1) +
                ", outside float32's range: use fewer positions (randomised positions MAX or "
                "the test length)");
  }
  if (c.keep_fraction) {
    require(takes_keep_fraction(c.position), "keepFraction",
            "the kept fraction is an option of " + name_list(methods_taking("keepFraction")) +
                ", not of " + to_string(c.position));
    require(std::isfinite(*c.keep_fraction) && *c.keep_fraction >= 0 && *c.keep_fraction <= 1,
            "keepFraction",
            "the kept fraction must be in [0, 1] (got " + format_number(*c.keep_fraction) + ")");
  }
  if (c.npos_max) {
    const PositionOption* option = table_option(c.position, "nposMax");
    require(option != nullptr, "nposMax",
            "npos_max is an option of " + name_list(methods_taking("nposMax")) + ", not of " +
                to_string(c.position));
    require_range(*c.npos_max, static_cast<std::size_t>(option->min),
                  static_cast<std::size_t>(option->max), "nposMax", "CoPE's npos_max");
  }
  if (c.abacus_max_offset) {
    require(
        c.position == PositionMethod::kAbacus, "abacusMaxOffset",
        std::string("the largest offset is an option of abacus, not of ") + to_string(c.position));
    const PositionOption* option = table_option(c.position, "maxOffset");
    require_range(*c.abacus_max_offset, static_cast<std::size_t>(option->min),
                  static_cast<std::size_t>(option->max), "abacusMaxOffset",
                  "Abacus's largest offset");
  }
  if (c.fox_decay_max) {
    require(
        c.position == PositionMethod::kFox, "foxDecayMax",
        std::string("the largest decay time is an option of fox, not of ") + to_string(c.position));
    const PositionOption* option = table_option(c.position, "decayMax");
    const double t = *c.fox_decay_max;
    require(std::isfinite(t) && (t == 0 || (t >= kFoxDecayMin && t <= option->max)), "foxDecayMax",
            "FoX's largest decay time must be 0 (every gate bias 0) or in [" +
                format_number(kFoxDecayMin) + ", " + format_number(option->max) + "] (got " +
                format_number(t) + ")");
  }
  if (c.nope_every > 0) {
    require(rotates, "nopeEvery",
            "NoPE layers leave a rotation out: " + std::string(to_string(c.position)) +
                " does not rotate (use " + name_list(rotation_methods()) + ")");
    require_range(c.nope_every, 1, c.layers, "nopeEvery",
                  "NoPE layers every K layers: K (at most the number of layers)");
  }
  if (c.attn_floor_scale != 0.0 || c.attn_scale != 0.0) {
    require(c.nope_every > 0, "attnFloorScale",
            "the attention temperature is Llama 4's on its NoPE layers: it needs NoPE layers "
            "(--nope-every, nopeEvery)");
    require_positive_finite(c.attn_floor_scale, "attnFloorScale",
                            "the attention temperature's floor scale");
    require(std::isfinite(c.attn_scale) && c.attn_scale >= 0, "attnScale",
            "the attention temperature's scale must be finite and >= 0, got " +
                format_number(c.attn_scale));
  }
  require(!(c.eval_positions == EvalPositions::kRandom && c.randomized_positions == 0),
          "evalPositions", "random evaluation positions need --randomized-positions MAX");
}

void check_memory(const TrainConfig& c, const char* options) {
  // Each of the largest tensors of a training step and of an evaluation batch (attention
  // weights and MLP activations of every layer, logits), against the element cap, naming the
  // option that sets its rows.
  const Vocabulary v = vocabulary(c.task, c.index_hints);
  const ModelConfig mc = model_config(c);
  const auto check_batch = [&](std::size_t rows, std::size_t length, const char* field) {
    try {
      checked_numel({c.layers, rows, c.heads, length, length}, "attention weights");
      checked_numel({c.layers, rows, length, 4 * c.width}, "MLP activations");
      checked_numel({rows, length, v.size()}, "logits");
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + ": lower " + options, field);
    }
  };
  check_batch(c.batch, sequence_length(c.task, c.train_len, c.index_hints), "batch");
  check_batch(eval_batch_of(c), sequence_length(c.task, test_len_of(c), c.index_hints),
              c.task == Task::kText ? "testLen" : "evalExamples");
  with_field("width", [&] {
    checked_numel({mc.n_layer, 12 * mc.n_embd, mc.n_embd}, "parameters");
    checked_numel({mc.n_positions, mc.n_embd}, "wpe");
    return 0;
  });

  // Every tensor can be under the element cap while all of them together are not.
  const WorkingSet ws = working_set(c);
  if (ws.total() > c.memory_limit) {
    const char* field = ws.parameters >= std::max(ws.training, ws.evaluation) ? "width"
                        : ws.training >= ws.evaluation                        ? "batch"
                                                                              : "testLen";
    throw Error("the run would need about " + format_bytes(ws.total()) + " (parameters and Adam " +
                    format_bytes(ws.parameters) + ", training activations " +
                    format_bytes(ws.training) + ", evaluation " + format_bytes(ws.evaluation) +
                    "), over the limit of " + format_bytes(c.memory_limit) + ": lower " + options,
                field);
  }
}

namespace {

// The activation buffers of Engine::resize (engine.hpp) and the attention plan, in elements
// of 4 bytes, for a batch of `rows` sequences of `length` tokens.
std::vector<std::uint64_t> activation_buffers(const ModelConfig& m, std::uint64_t rows,
                                              std::uint64_t length) {
  const std::uint64_t N = rows * length, E = m.n_embd, I = m.n_inner, H = m.n_head;
  const std::uint64_t layers = m.n_layer, d = E / H;
  return {
      (layers + 1) * N * E,                  // residual stream
      layers * N * (4 * E + 3 * E + 3 * E),  // ln1, atty, mid, ln2; q, k, v; qkv
      layers * N * 4,                        // LayerNorm means and rstds
      layers * rows * H * length * length,   // attention weights
      layers * N * 2 * I,                    // fc, fc_gelu
      N * (E + 2),                           // ln_f
      N * m.vocab_size,                      // logits
      N * (6 * E + 3 * E + 2 * I),           // backward buffers
      N * d * 2,                             // RoPE's cos and sin (double)
      // A score bias (FoX's too) of one layer at a time (in backward, its gradient)
      position_method_info(m.position).kind == PositionKind::kScoreBias ||
              m.position == PositionMethod::kFox
          ? rows * H * length * length
          : 0,
      m.position == PositionMethod::kFox ? layers * N * H : 0,  // FoX's gate logits
      m.sinks ? layers * rows * H * length : 0,                 // each row's sink weight
  };
}

}  // namespace

WorkingSet working_set(const TrainConfig& c) {
  const ModelConfig m = model_config(c);
  const std::vector<ParamInfo> layout = parameter_layout(m);
  const std::uint64_t params = layout.back().offset + layout.back().numel;
  // Natively, threads > 1 give each shard of the batch its own workspace and gradients.
  const std::uint64_t shards = c.threads > 1 ? std::min<std::uint64_t>(c.threads, c.batch) : 0;
  WorkingSet ws;
  ws.parameters = 4 * params * (4 + shards);
  const std::uint64_t train_length = sequence_length(c.task, c.train_len, c.index_hints);
  const std::uint64_t eval_length = sequence_length(c.task, test_len_of(c), c.index_hints);
  const std::vector<std::uint64_t> train = activation_buffers(m, c.batch, train_length);
  const std::uint64_t eval_rows = eval_batch_of(c);
  const std::vector<std::uint64_t> eval = activation_buffers(m, eval_rows, eval_length);
  for (std::size_t i = 0; i < train.size(); ++i) {
    if (shards > 0) {
      ws.training += 4 * train[i];
      ws.evaluation += 4 * eval[i];
    } else if (train[i] >= eval[i]) {
      ws.training += 4 * train[i];
    } else {
      ws.evaluation += 4 * eval[i];
    }
  }
  ws.evaluation += 4 * eval_rows * eval_length * m.vocab_size;  // the logits' copy
  return ws;
}

std::size_t abacus_max_offset_of(const TrainConfig& c) {
  const PositionOption* option = table_option(PositionMethod::kAbacus, "maxOffset");
  return c.abacus_max_offset.value_or(static_cast<std::size_t>(option->default_value));
}

double fox_decay_max_of(const TrainConfig& c) {
  if (c.position != PositionMethod::kFox) return 0.0;
  return c.fox_decay_max.value_or(table_option(PositionMethod::kFox, "decayMax")->default_value);
}

ModelConfig model_config(const TrainConfig& c) {
  ModelConfig m;
  m.n_layer = c.layers;
  m.n_embd = c.width;
  m.n_head = c.heads;
  m.n_inner = 4 * c.width;
  m.vocab_size = vocabulary(c.task, c.index_hints).size();
  // A learned table has a row per position the run can see: for text only the trained ones
  // (its evaluation past them says n/a), for the synthetic tasks every evaluated one.
  const std::size_t seen =
      c.task == Task::kText ? c.train_len : std::max(c.train_len, test_len_of(c));
  m.n_positions = std::max(
      {c.randomized_positions, c.coupled_positions, sequence_length(c.task, seen, c.index_hints)});
  if (c.position == PositionMethod::kAbacus) {
    // A place is at most the offset plus the longest run of digits, itself shorter than the
    // sequence.
    m.abacus_max_offset = abacus_max_offset_of(c);
    m.n_positions += m.abacus_max_offset;
  }
  m.position = c.position;
  m.embed_scale = c.embed_scale;
  m.sinks = c.sinks;
  m.nope_every = c.nope_every;
  m.attn_floor_scale = c.attn_floor_scale;
  m.attn_scale = c.attn_scale;
  const PositionOption* npos = table_option(c.position, "nposMax");
  m.cope_npos_max = c.npos_max.value_or(npos ? static_cast<std::size_t>(npos->default_value) : 64);
  const bool rotates = position_method_info(c.position).kind == PositionKind::kRotation;
  m.keep_fraction =
      c.keep_fraction.value_or(rotates ? rotation_defaults(c.position).keep_fraction : 1.0);
  return m;
}

}  // namespace poslab::train
