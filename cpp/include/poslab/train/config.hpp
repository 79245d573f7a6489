// The length-generalisation lab's settings: one tiny decoder-only transformer (pre-LayerNorm
// GPT-2 blocks, tied output head), one position method, one synthetic task. The CLI
// (`poslab train`), the training wasm module and the page read these names and defaults; the
// error fields are the JS option names (camelCase).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>

#include "poslab/base/names.hpp"
#include "poslab/positions/position_methods.hpp"

namespace poslab::train {

// The synthetic tasks, and text: a byte-level language model (Press et al. 2022, "Train Short,
// Test Long") trained on windows of train_len bytes and scored by loss per byte at longer
// contexts (train/text.hpp).
enum class Task { kCopy, kReverse, kSort, kAddition, kText };
// How positions enter the model: the methods of the one table the trainer supports.
using poslab::PositionMethod;
// Evaluation positions: 0..T−1 (index), or sorted samples from [0, MAX) (random, Ruoss et al.).
enum class EvalPositions { kIndex, kRandom };

inline constexpr Named<Task> kTaskNames[] = {{Task::kCopy, "copy"},
                                             {Task::kReverse, "reverse"},
                                             {Task::kSort, "sort"},
                                             {Task::kAddition, "addition"},
                                             {Task::kText, "text"}};
inline constexpr auto kPositionMethodNames = position_method_names<kSupportTrainer>();
inline constexpr Named<EvalPositions> kEvalPositionsNames[] = {{EvalPositions::kIndex, "index"},
                                                               {EvalPositions::kRandom, "random"}};

// The text task's longest test context (the synthetic tasks stop at 512 tokens).
inline constexpr std::size_t kMaxTextContext = 4096;

// The lab's defaults, one table for `poslab train`, the training wasm module and the page
// (web/src/lab/train-defaults.js is generated from it): the steps a task trains for, and the
// embedding scale s of x = s·wte[token] per position method. The scale sets how loud the token
// is against an added position table; one global value favoured some methods: over seeds 0–2
// on copy (N = 8, 2000 steps) sinusoidal trained at 8 and not at 4 (in-distribution exact
// match 1.00 against 0.36 ± 0.44) while NoPE trained at 4 and not at 8 (0.99 against
// 0.74 ± 0.18). docs/lab.md, "Fair defaults", has the runs.
struct TaskDefaults {
  Task task;
  std::size_t steps;
  std::size_t batch;  // sequences per step (text: windows of N bytes)
};
// Reverse trains for 5000 steps: at 3000 NoPE and Abacus stayed under 0.95 in distribution over
// seeds 0–2 (0.93 ± 0.04, 0.83 ± 0.16), at 5000 0.97 ± 0.02 and 0.96 ± 0.02 (docs/lab.md,
// "Every task at its defaults").
// Text trains on small batches: at an equal count of bytes seen, more steps of fewer windows
// reached a lower held-out loss, and the page's six runs fit their time budget (docs/lab.md,
// "Train short, test long").
inline constexpr TaskDefaults kTaskDefaults[] = {{Task::kCopy, 2500, 32},
                                                 {Task::kReverse, 5000, 32},
                                                 {Task::kSort, 2000, 32},
                                                 {Task::kAddition, 3000, 32},
                                                 {Task::kText, 2500, 8}};
inline constexpr double kDefaultEmbedScale = 4.0;
// The most index hints (TrainConfig::index_hints): each is a symbol of the vocabulary.
inline constexpr std::size_t kMaxIndexHints = 1024;
struct MethodDefaults {
  PositionMethod method;
  double embed_scale;
};
// The methods whose scale is not kDefaultEmbedScale. FoX at 4 trained one seed of three on copy
// (in distribution 1.00, 0.04, 0.09; at 2 and 8 none of seeds 1 and 2; 5000 steps rescued one),
// at 1 all three (1.00 each): docs/lab.md, "Attention sinks, NoPE layers, CoPE and FoX". Those
// runs started its gate biases at 0; at their decay-time start (the table's decayMax) copy
// trains at 1 as well (1.00 each).
inline constexpr MethodDefaults kMethodDefaults[] = {{PositionMethod::kSinusoidal, 8.0},
                                                     {PositionMethod::kFox, 1.0}};

constexpr std::size_t default_steps(Task task) {
  for (const TaskDefaults& d : kTaskDefaults) {
    if (d.task == task) return d.steps;
  }
  return 0;  // unreachable: a static_assert below checks every task has a row
}
constexpr std::size_t default_batch(Task task) {
  for (const TaskDefaults& d : kTaskDefaults) {
    if (d.task == task) return d.batch;
  }
  return 0;  // unreachable, as above
}
constexpr double default_embed_scale(PositionMethod method) {
  for (const MethodDefaults& d : kMethodDefaults) {
    if (d.method == method) return d.embed_scale;
  }
  return kDefaultEmbedScale;
}
static_assert(std::size(kTaskDefaults) == std::size(kTaskNames), "a default row per task");

// The token ids of a task: its symbols are 0..symbols−1, then BOS, SEP, EOS, PAD. The text
// task's are the 256 byte values and nothing else (its special ids are −1).
struct Vocabulary {
  std::size_t symbols = 0;
  std::int32_t bos = 0, sep = 0, eos = 0, pad = 0;
  bool specials = true;
  std::size_t size() const { return symbols + (specials ? 4 : 0); }
};
// With K index hints (addition), the hints are the symbols after '+': 11 … 11 + K − 1.
Vocabulary vocabulary(Task task, std::size_t index_hints = 0);

// What the weights need: config.json of a dump, the __metadata__ of a checkpoint.
struct ModelConfig {
  std::size_t n_layer = 2;
  std::size_t n_embd = 64;
  std::size_t n_head = 4;
  std::size_t n_inner = 256;  // 4·n_embd
  std::size_t vocab_size = 0;
  std::size_t n_positions = 0;  // rows of wpe (learned): max(MAX, the longest test sequence)
  double layer_norm_epsilon = 1e-5;
  PositionMethod position = PositionMethod::kNone;
  double base = 10000.0;       // sinusoidal and RoPE
  double keep_fraction = 1.0;  // the zeroed-pair mask's kept fraction of the frequencies (rope.hpp)
  double embed_scale = 1.0;    // x = embed_scale·wte[token]; the tied head uses wte unscaled
  std::size_t t5_num_buckets = 32;
  std::size_t t5_max_distance = 128;
  // Attention sinks (gpt-oss): one learned logit per layer and head in every softmax's
  // denominator, h.{l}.attn.sinks (H,); with any method.
  bool sinks = false;
  // NoPE layers (SmolLM3, Llama 4's iRoPE) of a rotation method: layers K, 2K, … (1-based) do
  // not rotate; 0: every layer does. Applied as position surgery's NoPE layers are
  // (Engine::plan_surgery).
  std::size_t nope_every = 0;
  // Llama 4's attention temperature on those layers: their queries times
  // log(⌊(p + 1) / attn_floor_scale⌋ + 1)·attn_scale + 1 at position p; attn_floor_scale 0: off.
  double attn_floor_scale = 0.0;
  double attn_scale = 0.0;
  // CoPE's npos_max: its positions are clipped at npos_max − 1, h.{l}.attn.cope_pos_emb is
  // (head width, npos_max).
  std::size_t cope_npos_max = 64;
  // Abacus's largest training offset (TrainConfig::abacus_max_offset); wpe has a row per place
  // it can reach.
  std::size_t abacus_max_offset = 0;
  // Whether layer l (0-based) is one of the NoPE layers.
  bool nope_layer(std::size_t l) const { return nope_every > 0 && (l + 1) % nope_every == 0; }
};

// The working-set limit of a run: the wasm heap's MAXIMUM_MEMORY (cpp/wasm/CMakeLists.txt) in
// the browser, 4 GiB natively, where POSLAB_TRAIN_MEMORY_LIMIT can raise it.
#ifdef __EMSCRIPTEN__
inline constexpr std::uint64_t kDefaultTrainMemoryLimit = std::uint64_t(2) << 30;
#else
inline constexpr std::uint64_t kDefaultTrainMemoryLimit = std::uint64_t(4) << 30;
#endif

// Everything a run is: `poslab train`'s options, one to one.
struct TrainConfig {
  Task task = Task::kCopy;
  PositionMethod position = PositionMethod::kNone;
  std::size_t randomized_positions = 0;  // MAX of Ruoss et al.; 0: positions are 0..T−1
  // MAX of position coupling (Cho et al. 2024; addition only): digits of the same significance
  // share a position, start + 1 + i for the i-th digit of either operand and of the sum, the
  // '+' and SEP tokens at `start`, BOS and EOS at 0 (the authors' code); start is drawn from
  // [1, MAX − n − 2] per training sequence of n digits and is 1 in evaluation. 0: off.
  std::size_t coupled_positions = 0;
  // Addition only: operands of fewer than N (train_len) digits are zero-padded to N, so every
  // sequence of lengths 1..N has one layout (the fixed-width format of Lee et al. 2023); longer
  // operands are written as drawn. Off: each operand has as many digits as its length.
  bool pad_operands = false;
  // K index hints (Zhou et al. 2024; addition only): each digit of a, b and the sum follows a
  // hint symbol naming its significance, hint start + i for the i-th digit, so that digits are
  // lined up by content; start is drawn from [0, K − digits − 1] per training sequence (the sum
  // has digits + 1) and is 0 in evaluation. 0: off.
  std::size_t index_hints = 0;
  std::size_t train_len = 8;            // N: training lengths are uniform in [1, N] (text: N)
  std::optional<std::size_t> test_len;  // M: evaluated lengths 1..M; unset: 4·N (text: 16·N)
  // The text task's bytes: the first 90% train, the last 10% are held out (train/text.hpp).
  std::shared_ptr<const std::string> text;
  std::size_t layers = 2;
  std::size_t width = 64;
  std::size_t heads = 4;
  std::size_t batch = default_batch(Task::kCopy);  // entry points: default_batch(task)
  std::size_t steps = default_steps(Task::kCopy);  // entry points: default_steps(task)
  double lr = 3e-3;                                // peak; linear warm-up, then cosine decay to 0
  std::size_t warmup_steps = 100;                  // min(warmup_steps, steps / 10) in practice
  std::uint64_t seed = 0;
  unsigned threads = 1;
  double embed_scale = kDefaultEmbedScale;  // entry points: default_embed_scale(position)
  std::optional<double> keep_fraction;  // the kept fraction of the frequencies; unset: the method's
  bool sinks = false;                   // attention sinks (ModelConfig::sinks)
  std::size_t nope_every = 0;           // NoPE layers K, 2K, … (ModelConfig::nope_every)
  double attn_floor_scale = 0.0;        // Llama 4's temperature on them; 0: off (ModelConfig)
  double attn_scale = 0.0;
  std::optional<std::size_t> npos_max;  // CoPE's npos_max; unset: the method's table default
  // Abacus's largest training offset (the authors' max_k): each training sequence's places
  // move by k drawn from [0, max], evaluation's by 0; unset: the method's table default.
  std::optional<std::size_t> abacus_max_offset;
  // FoX's largest decay time at the start (the table's decayMax): the heads' gate biases start
  // at decay times log-spaced from 2 to it, 0: every bias 0; unset: the method's table default.
  std::optional<double> fox_decay_max;
  std::optional<EvalPositions> eval_positions;  // unset: random when randomised, else index
  std::size_t eval_examples = 64;               // per evaluated length, a fixed seeded set
  // AdamW and clipping, as the issue fixes them.
  double beta1 = 0.9, beta2 = 0.98, adam_eps = 1e-8, weight_decay = 0.01, clip_norm = 1.0;
  // Not an option of the run: the most memory its working set may need (working_set()); the
  // CLI sets it from POSLAB_TRAIN_MEMORY_LIMIT.
  std::uint64_t memory_limit = kDefaultTrainMemoryLimit;
};

// The bytes a run holds at its peak, by part, as the trainer allocates them: the parameters,
// their gradients and Adam's two moments (and one gradient buffer per extra thread), the
// activations of a training batch and of an evaluation batch (one workspace serves both, so
// each buffer is as large as the larger of the two), and the evaluation's logits.
struct WorkingSet {
  std::uint64_t parameters = 0;  // weights, gradients, Adam m and v, per-thread gradients
  std::uint64_t training = 0;    // activations where the training batch needs more
  std::uint64_t evaluation = 0;  // activations where an evaluation batch needs more, + logits
  std::uint64_t total() const { return parameters + training + evaluation; }
};
WorkingSet working_set(const TrainConfig& config);

// Throws Error naming the option (field) at fault: zero sizes, width not divisible by heads,
// odd head width with RoPE, randomised positions with `none` or MAX shorter than the longest
// sequence, non-finite or non-positive lr / embed scale, threads 0, a test length of 0. The
// Trainer also runs check_memory().
// Runs before anything is allocated.
void validate(const TrainConfig& config);

// Refuses a tensor past the element cap (field batch, evalExamples or width) and a
// working_set() past memory_limit (the largest part's option as the field); for a
// configuration validate() accepted. `options` names what to lower in the message (the JS
// API's names by default; the CLI passes its flags).
void check_memory(const TrainConfig& config,
                  const char* options = "layers, width, batch, evalExamples, trainLen or testLen");

// The evaluated lengths' upper end (test_len, or 4·train_len; text: 16·train_len up to
// kMaxTextContext) and the eval position rule.
std::size_t test_len_of(const TrainConfig& config);
EvalPositions eval_positions_of(const TrainConfig& config);
// Abacus's largest training offset: the option, or the method's table default.
std::size_t abacus_max_offset_of(const TrainConfig& config);
// FoX's largest decay time at the start: the option, or the method's table default; 0 for
// the other methods.
double fox_decay_max_of(const TrainConfig& config);
// Sequences in one evaluation batch: eval_examples, or the text windows of the longest context
// that run together.
std::size_t eval_batch_of(const TrainConfig& config);

// Tokens in `BOS x SEP y EOS` for an input of `length` symbols (the addition task's input
// is two numbers of `length` digits each and a `+`; with index hints each digit has one more).
std::size_t sequence_length(Task task, std::size_t length, std::size_t index_hints = 0);

// The model a (validated) run trains.
ModelConfig model_config(const TrainConfig& config);

}  // namespace poslab::train
