// The bad-input probe kept as a table: every case runs the real binary in a sandbox that
// already holds the user's previous outputs, and must end within 5 s with its exit status and
// a "poslab: error: ..." line matching the case's pattern, no new file anywhere and every
// existing file byte-identical. POSLAB_CLI_UNDER_TEST=<binary> runs the table against another
// build (e.g. an older commit's) to see which cases it fails.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <regex>

#include "fixtures.hpp"
#include "poslab/io/safetensors.hpp"
#include "poslab/models/gpt2.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "poslab/models/llama.hpp"

namespace poslab::test {
namespace {

constexpr double kLimitSeconds = 5.0;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
// What the user had before the failed command: it must survive byte for byte.
constexpr const char* kPrevious = "the previous output, which a failed run must not touch";

// A file's bytes, made when its case runs. ctest runs each case in a process of its own, and
// every process builds the whole table to register it: the checkpoints, made there eagerly,
// cost 0.5 s per start.
class Bytes {
 public:
  Bytes(std::string bytes) : make_([bytes = std::move(bytes)] { return bytes; }) {}
  Bytes(const char* bytes) : Bytes(std::string(bytes)) {}
  explicit Bytes(std::function<std::string()> make) : make_(std::move(make)) {}
  std::string operator()() const { return make_(); }

 private:
  std::function<std::string()> make_;
};

// A name ending in '/' is a directory.
using Files = std::vector<std::pair<std::string, Bytes>>;

struct BadInput {
  const char* name;
  Files files;
  std::vector<std::string> args;
  int status;           // 1: bad data, 2: bad command line
  const char* pattern;  // ECMAScript regex searched in stderr
};

// gtest prints a failing parameter with this: the case's name, not its bytes.
void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

std::string header_only(const std::string& descr, const std::string& shape) {
  return npy_file(npy_dict(descr, shape), "");
}

// A (rows, cols) float32 array of 0.5 with `value` at flat index `at`.
std::string f4_with(std::size_t rows, std::size_t cols, std::size_t at, float value) {
  std::vector<float> values(rows * cols, 0.5f);
  values[at] = value;
  return npy_f4(rows, cols, values);
}

std::string f8_with(std::size_t rows, std::size_t cols, std::size_t at, double value) {
  std::vector<double> values(rows * cols, 0.5);
  values[at] = value;
  const std::string shape = "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
  return npy_file(npy_dict("<f8", shape), raw(values));
}

std::string f4_filled(std::size_t rows, std::size_t cols, float value) {
  return npy_f4(rows, cols, std::vector<float>(rows * cols, value));
}

std::string f4_vector(std::vector<float> values) {
  return npy_file(npy_dict("<f4", "(" + std::to_string(values.size()) + ",)"), raw(values));
}

// A GPT-2 checkpoint header with `blocks` zero-size h.N.ln_1.weight entries and an empty
// vocabulary: reading its config used to scan the header once per block (quadratic).
Bytes many_entry_checkpoint(std::size_t blocks) {
  return Bytes([blocks] {
    std::vector<TensorF> tensors;
    tensors.reserve(blocks + 2);
    tensors.emplace_back(Shape{0, 64});
    tensors.emplace_back(Shape{16, 64});
    std::vector<std::pair<std::string, const TensorF*>> named{{"wte.weight", &tensors[0]},
                                                              {"wpe.weight", &tensors[1]}};
    for (std::size_t i = 0; i < blocks; ++i) {
      tensors.emplace_back(Shape{0});
      named.emplace_back("h." + std::to_string(i) + ".ln_1.weight", &tensors.back());
    }
    return encode_safetensors(named);
  });
}

const std::string kQ = f4_filled(4, 8, 1.0f);  // (4, 8) ones: q, k and v of the attention cases
const std::string kTiny =
    R"({"vocab_size": 10, "n_positions": 8, "n_embd": 8, "n_layer": 1, "n_head": 2})";

std::vector<std::string> attention(const std::string& q, const std::string& k, const std::string& v,
                                   std::vector<std::string> more = {}) {
  std::vector<std::string> args{"attention", "--q", q, "--k", k, "--v", v, "-o", "out.npy"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Language models for `poslab lm`: a tiny GPT-NeoX, and one with Pythia's vocabulary (whose
// (T, V) logits pass the element cap at T = 6000) but otherwise 8 wide, one layer, one head.
const std::string kNeoxTiny =
    R"({"model_type": "gpt_neox", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
        "num_attention_heads": 2, "intermediate_size": 8, "rotary_pct": 0.5})";
const std::string kNeoxWideVocab =
    R"({"model_type": "gpt_neox", "vocab_size": 50304, "hidden_size": 8, "num_hidden_layers": 1,
        "num_attention_heads": 1, "intermediate_size": 8})";

// kNeoxTiny with one more key.
std::string neox_config_with(const std::string& entry) {
  return kNeoxTiny.substr(0, kNeoxTiny.rfind('}')) + ", " + entry + "}";
}

// A quick `poslab train` run with `more` options (result in out.json).
std::vector<std::string> train(std::vector<std::string> more) {
  std::vector<std::string> args{"train", "--task",  "copy", "--position", "rope", "--train-len",
                                "4",     "--steps", "1",    "-q",         "-o",   "out.json"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// A sweep plan: copy with rope, one seed, N = 2, and `more` (JSON members, after a comma).
std::string sweep_plan(const std::string& more) {
  return R"({"tasks": ["copy"], "methods": ["rope"], "seeds": 1, "options": {"train-len": [2])" +
         (more.empty() ? "}" : "}, " + more) + "}";
}
std::string sweep_plan_options(const std::string& more) {
  return R"({"tasks": ["copy"], "methods": ["rope"], "seeds": 1, "options": {"train-len": [2], )" +
         more + "}}";
}
std::vector<std::string> sweep_run() { return {"sweep", "run", "plan.json", "--out", "d"}; }
// A sweep directory's run list of one run.
constexpr const char* kSweepRunList =
    R"({"name": "t", "resources": {"cpus": 1, "mem": "1G", "time": "01:00:00", "partition": ""},
        "runs": [{"id": "copy.rope.s0", "task": "copy", "method": "rope", "options": {},
                  "seed": 0, "args": ["train", "--task", "copy", "--position", "rope",
                  "--train-len=2", "--seed", "0", "-q"]}]})";

Bytes neox_checkpoint(const std::string& config) {
  return Bytes([config] {
    return encode_safetensors(
        lm_named_tensors(lm_random_weights(GptNeoxConfig::from_json(config, "config.json"), 1)));
  });
}

const std::string kLlamaTiny =
    R"({"model_type": "llama", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
        "num_attention_heads": 2, "num_key_value_heads": 2, "intermediate_size": 8})";

// kLlamaTiny with `entry` in place of its last key (intermediate_size).
std::string llama_config_with(const std::string& entry) {
  return kLlamaTiny.substr(0, kLlamaTiny.rfind(", \"intermediate_size\"")) +
         (entry.empty() ? "" : ", " + entry) + "}";
}

Bytes llama_checkpoint(const std::string& config) {
  return Bytes([config] {
    return encode_safetensors(
        lm_named_tensors(lm_random_weights(LlamaConfig::from_json(config, "config.json"), 1)));
  });
}

// `poslab surgery`, `poslab lm` or `poslab lens` (`command`) on the tiny GPT-NeoX of kNeoxTiny
// (1 layer, 2 heads, one rotary pair) over 8 tokens, with `more`, writing `out`.
const std::vector<std::string> kTinyModelArgs{"--weights", "m.safetensors", "--config",
                                              "c.json",    "--tokens",      "1,2,3,4,5,6,7,8"};
std::vector<std::string> surgery_args(const char* command, const char* out,
                                      std::vector<std::string> more) {
  std::vector<std::string> args{command};
  args.insert(args.end(), kTinyModelArgs.begin(), kTinyModelArgs.end());
  args.insert(args.end(), more.begin(), more.end());
  args.insert(args.end(), {"-o", out});
  return args;
}
// A GPT-2 checkpoint of kTiny.
const Bytes kGpt2Tiny([] {
  return encode_safetensors(
      lm_named_tensors(lm_random_weights(Gpt2Config::from_json(kTiny, "tiny.json"), 1)));
});
const Files kNeoxTinyFiles = {{"c.json", kNeoxTiny}, {"m.safetensors", neox_checkpoint(kNeoxTiny)}};
// `poslab <command>` on the tiny GPT-NeoX with `more`, refused with `status` and `pattern`.
BadInput tiny_neox_case(const char* name, const char* command, std::vector<std::string> more,
                        int status, const char* pattern) {
  const char* out = std::string(command) == "lm" ? "out.npy" : "out.json";
  return {name, kNeoxTinyFiles, surgery_args(command, out, std::move(more)), status, pattern};
}
// The shipped lab model (a RoPE text model), read when its case runs.
const Bytes kLabCheckpoint([] {
  return read_file(POSLAB_SOURCE_DIR "/web/src/content/text-rope.safetensors");
});

// T token ids (all 1) as an int64 .npy.
std::string ids_npy(std::size_t T) {
  return npy_file(npy_dict("<i8", "(" + std::to_string(T) + ",)"),
                  raw(std::vector<std::int64_t>(T, 1)));
}

const std::vector<BadInput>& cases() {
  static const std::vector<BadInput> table = {
      // Every axis is bounded on its own, also when another axis is 0 (these used to hang).
      {"RopeZeroAxisNextToAHugeOne",
       {{"x.npy", header_only("<f4", "(0, 1125899906842624, 2)")}},
       {"rope", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(x\.npy: array \(0, 1125899906842624, 2\): axis 1 has 1125899906842624 entries; the limit is \d+)"},
      {"AttentionZeroAxisNextToAHugeOne",
       {{"q.npy", header_only("<f4", "(1099511627776, 0, 4)")}},
       attention("q.npy", "q.npy", "q.npy"),
       1,
       R"(q\.npy: array .*axis 0 has 1099511627776 entries)"},
      {"NormZeroAxisNextToAHugeOne",
       {{"x.npy", header_only("<f4", "(1152921504606846976, 0, 4)")}},
       {"norm", "--kind", "layernorm", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(axis 0 has 1152921504606846976 entries)"},
      {"SimilarityZeroAxisNextToAHugeOne",
       {{"x.npy", header_only("<f4", "(0, 1099511627776)")}},
       {"similarity", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(axis 1 has 1099511627776 entries)"},
      {"AxisJustOverTheCap",
       {{"x.npy", header_only("<f4", "(0, 268435457)")}},
       {"rope", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(axis 1 has 268435457 entries; the limit is 268435456)"},
      {"ManyHugeAxesAroundAZero",
       {{"x.npy", header_only("<f4", "(4294967296, 4294967296, 0, 4294967296)")}},
       {"norm", "--kind", "rmsnorm", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(axis 0 has 4294967296 entries)"},
      {"BiasZeroAxisNextToAHugeOne",
       {{"q.npy", kQ}, {"b.npy", header_only("<f4", "(1099511627776, 0)")}},
       attention("q.npy", "q.npy", "q.npy", {"--bias", "b.npy"}),
       1,
       R"(b\.npy: array .*axis 0)"},
      {"KeyPaddingZeroAxisNextToAHugeOne",
       {{"q.npy", kQ}, {"p.npy", header_only("|u1", "(0, 1099511627776)")}},
       attention("q.npy", "q.npy", "q.npy", {"--key-padding", "p.npy"}),
       1,
       R"(p\.npy: array .*axis 1)"},
      {"GammaZeroAxisNextToAHugeOne",
       {{"x.npy", f4_filled(3, 4, 0.5f)}, {"g.npy", header_only("<f4", "(0, 1099511627776)")}},
       {"norm", "--kind", "layernorm", "--in", "x.npy", "--gamma", "g.npy", "-o", "out.npy"},
       1,
       R"(g\.npy: array .*axis 1)"},

      // One finiteness rule: NaN and +inf refused everywhere, with the file, index and value.
      {"LayerNormNaN",
       {{"x.npy", f4_with(3, 4, 6, kNaN)}},
       {"norm", "--kind", "layernorm", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(x\.npy\[1, 2\] is NaN: inputs must be finite)"},
      {"LayerNormPlusInf",
       {{"x.npy", f4_with(3, 4, 11, kInf)}},
       {"norm", "--kind", "layernorm", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(x\.npy\[2, 3\] is \+inf)"},
      {"LayerNormMinusInf",
       {{"x.npy", f4_with(3, 4, 0, -kInf)}},
       {"norm", "--kind", "layernorm", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(x\.npy\[0, 0\] is -inf: inputs must be finite)"},
      {"RmsNormNaN",
       {{"x.npy", f4_with(3, 4, 5, kNaN)}},
       {"norm", "--kind", "rmsnorm", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(x\.npy\[1, 1\] is NaN)"},
      {"LayerNormGammaNaN",
       {{"x.npy", f4_filled(3, 4, 0.5f)}, {"g.npy", f4_vector({1, kNaN, 1, 1})}},
       {"norm", "--kind", "layernorm", "--in", "x.npy", "--gamma", "g.npy", "-o", "out.npy"},
       1,
       R"(g\.npy\[1\] is NaN)"},
      {"LayerNormBetaPlusInf",
       {{"x.npy", f4_filled(3, 4, 0.5f)}, {"b.npy", f4_vector({0, 0, 0, kInf})}},
       {"norm", "--kind", "layernorm", "--in", "x.npy", "--beta", "b.npy", "-o", "out.npy"},
       1,
       R"(b\.npy\[3\] is \+inf)"},
      {"CosineSimilarityNaNRow",
       {{"x.npy", f4_with(3, 4, 4, kNaN)}},
       {"similarity", "--in", "x.npy", "--metric", "cosine", "-o", "out.npy"},
       1,
       R"(x\.npy\[1, 0\] is NaN)"},
      {"CosineSimilarityInfRow",
       {{"x.npy", f4_with(3, 4, 8, kInf)}},
       {"similarity", "--in", "x.npy", "--metric", "cosine", "-o", "out.npy"},
       1,
       R"(x\.npy\[2, 0\] is \+inf)"},
      {"DotSimilarityNaN",
       {{"x.npy", f4_with(3, 4, 1, kNaN)}},
       {"similarity", "--in", "x.npy", "--metric", "dot", "-o", "out.npy"},
       1,
       R"(x\.npy\[0, 1\] is NaN)"},
      {"RopeNaN",
       {{"x.npy", f4_with(4, 8, 9, kNaN)}},
       {"rope", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(x\.npy\[1, 1\] is NaN)"},
      {"RopeMinusInf",
       {{"x.npy", f4_with(4, 8, 31, -kInf)}},
       {"rope", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(x\.npy\[3, 7\] is -inf)"},
      {"XposNaN",
       {{"x.npy", f4_with(4, 8, 9, kNaN)}},
       {"rope", "--method", "xpos", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(x\.npy\[1, 1\] is NaN)"},
      {"XposOddWidth",
       {{"x.npy", f4_with(3, 5, 0, 0.5f)}},
       {"rope", "--method", "xpos", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(rotary dim D·fraction = 5 must be even and at least 2 \(D = 5\))"},
      {"XposScaleBaseNegative",
       {{"x.npy", kQ}},
       {"rope", "--method", "xpos", "--in", "x.npy", "--scale-base", "-1", "-o", "out.npy"},
       1,
       R"(the scale base must be 0 \(no decay\) or a positive finite number \(got -1\))"},
      {"RopeMethodNotARotation",
       {{"x.npy", kQ}},
       {"rope", "--method", "alibi", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(position method 'alibi' does not rotate q and k)"},
      {"XposBaseOne",
       {{"x.npy", kQ}},
       {"rope", "--method", "xpos", "--in", "x.npy", "--base", "1", "-o", "out.npy"},
       1,
       R"(RoPE base must be a positive finite number other than 1 \(got 1\))"},
      {"XposKeyScaleOverflows",
       {{"x.npy", kQ}},
       {"rope", "--method", "xpos", "--in", "x.npy", "--key", "--scale-base", "0.001", "-o",
        "out.npy"},
       1,
       R"(the rotation's scale .* at position 3 of 4 overflows float32; use a larger scaleBase)"},
      {"AttentionQueryNaN",
       {{"q.npy", f4_with(4, 8, 2, kNaN)}, {"k.npy", kQ}},
       attention("q.npy", "k.npy", "k.npy"),
       1,
       R"(q\.npy\[0, 2\] is NaN)"},
      {"AttentionKeyPlusInf",
       {{"q.npy", kQ}, {"k.npy", f4_with(4, 8, 8, kInf)}},
       attention("q.npy", "k.npy", "q.npy"),
       1,
       R"(k\.npy\[1, 0\] is \+inf)"},
      {"AttentionValueMinusInf",
       {{"q.npy", kQ}, {"v.npy", f4_with(4, 8, 16, -kInf)}},
       attention("q.npy", "q.npy", "v.npy"),
       1,
       R"(v\.npy\[2, 0\] is -inf)"},
      {"AttentionBiasNaN",
       {{"q.npy", kQ}, {"b.npy", f4_with(4, 4, 5, kNaN)}},
       attention("q.npy", "q.npy", "q.npy", {"--bias", "b.npy"}),
       1,
       R"(b\.npy\[1, 1\] is NaN: inputs must be finite \(-inf is allowed: it hides a key\))"},
      {"AttentionBiasPlusInf",
       {{"q.npy", kQ}, {"b.npy", f4_with(4, 4, 3, kInf)}},
       attention("q.npy", "q.npy", "q.npy", {"--bias", "b.npy"}),
       1,
       R"(b\.npy\[0, 3\] is \+inf)"},
      {"KeyPaddingNaN",
       {{"q.npy", kQ}, {"p.npy", f4_vector({0, kNaN, 0, 0})}},
       attention("q.npy", "q.npy", "q.npy", {"--key-padding", "p.npy"}),
       1,
       R"(p\.npy\[1\] is NaN)"},
      {"Float64BeyondFloat32InNorm",
       {{"x.npy", f8_with(2, 3, 4, 1e300)}},
       {"norm", "--kind", "layernorm", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(x\.npy\[1, 1\] is 1\.0+1e\+300, which overflows float32)"},
      {"Float64BeyondFloat32InAttention",
       {{"q.npy", f8_with(4, 8, 0, -3.5e38)}, {"k.npy", kQ}},
       attention("q.npy", "k.npy", "k.npy"),
       1,
       R"(q\.npy\[0, 0\] is -3\.5\d*e\+38, which overflows float32)"},
      {"Float64NaNInRope",
       {{"x.npy", f8_with(4, 8, 3, std::nan(""))}},
       {"rope", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(x\.npy\[0, 3\] is NaN)"},

      // Scores that overflow float32 once scaled are refused, not turned into NaN.
      {"HugeScale",
       {{"q.npy", kQ}},
       attention("q.npy", "q.npy", "q.npy", {"--scale", "1e308"}),
       1,
       R"(attention scores overflow float32: .* at head 0, query 0, key 0 \(scale 1e\+308\))"},
      {"HugeNegativeScale",
       {{"q.npy", kQ}},
       attention("q.npy", "q.npy", "q.npy", {"--scale", "-1e308"}),
       1,
       R"(attention scores overflow float32)"},
      {"LargeScaleTimesLargeInputs",
       {{"q.npy", f4_filled(4, 8, 1e3f)}},
       attention("q.npy", "q.npy", "q.npy", {"--scale", "1e38"}),
       1,
       R"(attention scores overflow float32: q·k × scale = 8e\+44)"},
      {"LargeInputsAtTheDefaultScale",
       {{"q.npy", f4_filled(4, 8, 1e30f)}},
       attention("q.npy", "q.npy", "q.npy", {"--mask", "causal"}),
       1,
       R"(attention scores overflow float32)"},

      // Outputs: all or nothing; the previous out.npy survives every failure.
      {"WeightsPathIsADirectory",
       {{"q.npy", kQ}, {"w.npy/", ""}},
       attention("q.npy", "q.npy", "q.npy", {"--weights", "w.npy"}),
       1,
       R"(w\.npy: cannot write: it is a directory)"},
      {"OutputPathIsADirectory",
       {{"q.npy", kQ}, {"o.npy/", ""}},
       {"attention", "--q", "q.npy", "--k", "q.npy", "--v", "q.npy", "-o", "o.npy"},
       1,
       R"(o\.npy: cannot write: it is a directory)"},
      {"OutputIntoAMissingDirectory",
       {},
       {"sinusoidal", "--len", "4", "--dim", "8", "-o", "missing/out.npy"},
       1,
       R"(directory 'missing' does not exist)"},
      {"OutputUnderAFile",
       {{"file", "x"}},
       {"sinusoidal", "--len", "4", "--dim", "8", "-o", "file/out.npy"},
       1,
       R"('file' is not a directory)"},
      {"TraceFileCannotBeWritten",
       {{"tiny.json", kTiny}, {"tr/", ""}, {"tr/attention_layer0.npy/", ""}},
       {"gpt2", "--config", "tiny.json", "--tokens", "1,2", "-o", "out.npy", "--trace", "tr"},
       1,
       R"(tr/attention_layer0\.npy: cannot write: it is a directory)"},
      {"FailedTraceLeavesNoNewDirectory",
       {{"tiny.json", kTiny}, {"logits.npy/", ""}},
       {"gpt2", "--config", "tiny.json", "--tokens", "1,2", "-o", "logits.npy", "--trace",
        "newdir"},
       1,
       R"(logits\.npy: cannot write: it is a directory)"},
      {"TraceDirectoryIsAFile",
       {{"tiny.json", kTiny}, {"tr", "x"}},
       {"gpt2", "--config", "tiny.json", "--tokens", "1,2", "-o", "out.npy", "--trace", "tr"},
       1,
       R"(--trace must name a directory)"},
      {"TraceUnderAMissingDirectory",
       {{"tiny.json", kTiny}},
       {"gpt2", "--config", "tiny.json", "--tokens", "1,2", "-o", "out.npy", "--trace",
        "missing/tr"},
       1,
       R"(directory 'missing' does not exist)"},
      {"TextOutputTooLarge",
       {},
       {"sinusoidal", "--len", "8192", "--dim", "4096", "-o", "out.csv"},
       1,
       R"(too many for a text file)"},

      // A checkpoint header of 40 000 entries is judged in linear time.
      {"CheckpointHeaderWithManyEntries",
       {{"many.safetensors", many_entry_checkpoint(40000)}},
       {"gpt2", "--weights", "many.safetensors", "--tokens", "1", "-o", "out.npy"},
       1,
       R"(many\.safetensors: vocab_size must be positive)"},

      // Malformed files.
      {"NotNpy",
       {{"x.npy", "hello"}},
       {"rope", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(not a \.npy file)"},
      {"TruncatedData",
       {{"x.npy", npy_file(npy_dict("<f4", "(4, 8)"), std::string(12, '\0'))}},
       {"rope", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(truncated: header says 128 bytes of data, file has 12)"},
      {"TrailingBytes",
       {{"x.npy", npy_file(npy_dict("<f4", "(1, 2)"), std::string(12, '\0'))}},
       {"rope", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(4 unexpected bytes after the data)"},
      {"FortranOrder",
       {{"x.npy", npy_file(npy_dict("<f4", "(1, 2)", "True"), std::string(8, '\0'))}},
       {"rope", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(Fortran-ordered arrays are not supported)"},
      {"BigEndian",
       {{"x.npy", npy_file(npy_dict(">f4", "(1, 2)"), std::string(8, '\0'))}},
       {"rope", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(big-endian data)"},
      {"ComplexDtype",
       {{"x.npy", npy_file(npy_dict("<c8", "(1, 2)"), std::string(16, '\0'))}},
       {"rope", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(unsupported dtype '<c8')"},
      {"NegativeDimension",
       {{"x.npy", npy_file(npy_dict("<f4", "(-1, 2)"), "")}},
       {"rope", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(negative dimension)"},
      {"InputIsADirectory",
       {{"d.npy/", ""}},
       {"rope", "--in", "d.npy", "-o", "out.npy"},
       2,
       R"(--in: 'd\.npy' is a directory, not a regular file)"},
      {"MissingInput",
       {},
       {"rope", "--in", "nope.npy", "-o", "out.npy"},
       1,
       R"(nope\.npy: cannot open: No such file or directory)"},
      {"ZeroDimensionalRopeInput",
       {{"x.npy", npy_file(npy_dict("<f4", "()"), std::string(4, '\0'))}},
       {"rope", "--in", "x.npy", "-o", "out.npy"},
       1,
       R"(RoPE input must be \(L, D\) or \(H, L, D\))"},

      // Bad command lines (status 2).
      {"NegativeLength",
       {},
       {"sinusoidal", "--len", "-1", "--dim", "8", "-o", "out.npy"},
       2,
       R"(--len)"},
      {"OddDim",
       {},
       {"sinusoidal", "--len", "4", "--dim", "7", "-o", "out.npy"},
       1,
       R"(dim must be even \(got 7\))"},
      {"LengthOverTheCap",
       {},
       {"sinusoidal", "--len", "1099511627776", "--dim", "8", "-o", "out.npy"},
       1,
       R"(too large)"},
      {"NaNScale",
       {{"q.npy", kQ}},
       attention("q.npy", "q.npy", "q.npy", {"--scale", "nan"}),
       2,
       R"(--scale)"},
      {"InfiniteScale",
       {{"q.npy", kQ}},
       attention("q.npy", "q.npy", "q.npy", {"--scale", "inf"}),
       2,
       R"(--scale)"},
      {"ScaleOverflowingDouble",
       {{"q.npy", kQ}},
       attention("q.npy", "q.npy", "q.npy", {"--scale", "1e999"}),
       2,
       R"(--scale)"},
      {"WindowZero",
       {{"q.npy", kQ}},
       attention("q.npy", "q.npy", "q.npy", {"--mask", "window:0"}),
       2,
       R"(window size must be at least 1)"},
      {"NegativeEps",
       {{"x.npy", f4_filled(3, 4, 0.5f)}},
       {"norm", "--kind", "layernorm", "--in", "x.npy", "--eps", "-1", "-o", "out.npy"},
       1,
       R"(eps must be a non-negative finite number)"},
      {"UnknownExtension",
       {},
       {"sinusoidal", "--len", "4", "--dim", "8", "-o", "out.txt"},
       2,
       R"(\.txt)"},
      {"RopeOffsetPastTheLimit",
       {{"x.npy", f4_filled(4, 8, 0.5f)}},
       {"rope", "--in", "x.npy", "--offset", "2199023255552", "-o", "out.npy"},
       1,
       R"(offset must be in \[0, 2\^40\])"},
      {"TokensNotNumbers",
       {{"tiny.json", kTiny}},
       {"gpt2", "--config", "tiny.json", "--tokens", "1,x", "-o", "out.npy"},
       2,
       R"(token ids must be comma-separated non-negative integers \(got 'x'\))"},
      {"LmNeoxCheckpointWithoutConfig",
       {{"m.safetensors", neox_checkpoint(kNeoxTiny)}},
       {"lm", "--weights", "m.safetensors", "--tokens", "1,2", "-o", "out.npy"},
       1,
       R"(m\.safetensors is a GPT-NeoX checkpoint: give its config\.json with --config)"},
      {"LmRopeScalingOnLearnedPositions",
       {{"tiny.json", kTiny}, {"g.safetensors", kGpt2Tiny}},
       {"lm", "--weights", "g.safetensors", "--config", "tiny.json", "--tokens", "1",
        "--rope-scaling", "linear", "--rope-factor", "2", "-o", "out.npy"},
       2,
       R"(GPT-2, whose positions are learned \(wpe\))"},
      {"LmTokenIdsNotIntegers",
       {{"c.json", kNeoxTiny},
        {"m.safetensors", neox_checkpoint(kNeoxTiny)},
        {"ids.npy", npy_file(npy_dict("<f4", "(2,)"), raw(std::vector<float>{1.0f, 2.5f}))}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens-file", "ids.npy", "-o",
        "out.npy"},
       1,
       R"(ids\.npy\[1\] is 2\.5: token ids must be integers)"},
      {"LmLogitsPastTheCap",
       {{"c.json", kNeoxWideVocab},
        {"m.safetensors", neox_checkpoint(kNeoxWideVocab)},
        {"ids.npy", ids_npy(6000)}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens-file", "ids.npy", "-o",
        "out.npy"},
       1,
       R"(logits \(T, V\) \(6000, 50304\) would have 301824000 elements.*loss by position)"},
      {"LmTraceOfALongSequencePastTheCap",
       {{"c.json", kNeoxWideVocab},
        {"m.safetensors", neox_checkpoint(kNeoxWideVocab)},
        {"ids.npy", ids_npy(20000)}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens-file", "ids.npy",
        "--loss-by-position", "--trace", "tr", "-o", "out.npy"},
       1,
       R"(attention maps \(N, H, T, T\) \(1, 1, 20000, 20000\).*trace a shorter sequence)"},
      // Round two (issue 25): each of these exited 0 with a wrong result, or said the wrong thing.
      {"TrainWorkingSetOverTheMemoryLimit",
       {},
       {"train", "--task",   "copy", "--position",      "rope", "--train-len", "512", "--test-len",
        "512",   "--layers", "16",   "--width",         "1024", "--heads",     "4",   "--batch",
        "3",     "--steps",  "1",    "--eval-examples", "1",    "-q",          "-o",  "out.json"},
       1,
       R"(would need about [\d.]+ GiB .*over the limit of 4 GiB: lower --layers, --width, --batch, --eval-examples, --train-len or --test-len \(or raise the limit with POSLAB_TRAIN_MEMORY_LIMIT)"},
      {"TrainResultIntoANpyFile",
       {},
       {"train", "--task", "copy", "--position", "rope", "--train-len", "4", "--steps", "1", "-q",
        "-o", "out.npy"},
       2,
       R"(-o writes the result as JSON: give a name ending in \.json \(got 'out\.npy'\))"},
      {"TrainCheckpointIntoAJsonFile",
       {},
       train({"--checkpoint", "same.json"}),
       2,
       R"(--checkpoint writes the weights as safetensors: give a name ending in \.safetensors)"},
      {"TrainDumpAndResultNameOneFile",
       {},
       {"train", "--task", "copy", "--position", "rope", "--train-len", "4", "--steps", "0",
        "--dump", "r.json", "-o", "./r.json"},
       2,
       R"(-o and --dump name the same file \('\./r\.json' and 'r\.json'\))"},
      {"TrainTestLengthZero",
       {},
       train({"--test-len", "0"}),
       2,
       R"(--test-len: must be positive \(got 0\))"},
      {"TrainEmbedScaleOverflows",
       {},
       train({"--embed-scale", "1e308"}),
       1,
       R"(the embedding scale 1e\+308 overflows float32: .*use at most \d)"},
      {"TrainTinyNegativeLearningRateShownAsTyped",
       {},
       train({"--lr", "-1e-30"}),
       1,
       R"(the learning rate must be a positive finite number, got -1e-30)"},
      {"TrainTinyNegativeEmbedScaleShownAsTyped",
       {},
       train({"--embed-scale", "-1e-30"}),
       1,
       R"(the embedding scale must be a positive finite number, got -1e-30)"},
      {"TrainAttentionTemperatureIsTwoNumbers",
       {},
       train({"--nope-every", "1", "--attn-temperature", "8192"}),
       2,
       R"(--attn-temperature takes FLOOR,SCALE, two numbers .*got '8192')"},
      {"TrainAttentionTemperatureWithoutNopeLayers",
       {},
       train({"--attn-temperature", "8192,0.1"}),
       1,
       R"(the attention temperature is Llama 4's on its NoPE layers: it needs NoPE layers \(--nope-every, nopeEvery\))"},
      {"TrainNopeLayersOfAScoreBias",
       {},
       {"train", "--task", "copy", "--position", "alibi", "--train-len", "4", "--steps", "1", "-q",
        "-o", "out.json", "--nope-every", "1"},
       1,
       R"(NoPE layers leave a rotation out: alibi does not rotate \(use rope, p-rope or xpos\))"},
      {"NormTinyNegativeEpsShownAsTyped",
       {{"x.npy", kQ}},
       {"norm", "--kind", "layernorm", "--in", "x.npy", "--eps", "-1e-30", "-o", "out.npy"},
       1,
       R"(got -1e-30\))"},
      // poslab sweep: a bad plan is refused before any run starts or any file is made.
      {"SweepPlanNotJson",
       {{"plan.json", "{\"tasks\": ["}},
       sweep_run(),
       1,
       R"(plan\.json: not valid JSON)"},
      {"SweepPlanUnknownKey",
       {{"plan.json", R"({"taks": ["copy"], "methods": ["rope"], "seeds": 1})"}},
       sweep_run(),
       1,
       R"(plan\.json: taks: unknown key \(a plan has name, tasks, methods, seeds, options, resources\))"},
      {"SweepPlanEmptyList",
       {{"plan.json", sweep_plan_options(R"("layers": [])")}},
       sweep_run(),
       1,
       R"(plan\.json: options\.layers: an empty list: give at least one value)"},
      {"SweepPlanOptionTrainLacks",
       {{"plan.json", sweep_plan_options(R"("layer": [1])")}},
       sweep_run(),
       1,
       R"(plan\.json: options\.layer: poslab train has no --layer \(see poslab train --help\))"},
      {"SweepPlanFlagGivenANumber",
       {{"plan.json", sweep_plan_options(R"("sinks": [1])")}},
       sweep_run(),
       1,
       R"(plan\.json: options\.sinks: --sinks is a flag: give true and/or false)"},
      {"SweepPlanValueTrainCannotParse",
       {{"plan.json", sweep_plan_options(R"("layers": [1, "four"])")}},
       sweep_run(),
       1,
       R"(plan\.json: options\.layers\[1\]: --layers: 'four' is not an integer)"},
      {"SweepPlanSetsTheSeed",
       {{"plan.json", sweep_plan_options(R"("seed": [1])")}},
       sweep_run(),
       1,
       R"(plan\.json: options\.seed: the sweep sets --seed itself: use the plan's "seeds")"},
      {"SweepPlanWithoutTrainLength",
       {{"plan.json", R"({"tasks": ["copy"], "methods": ["rope"], "seeds": 1})"}},
       sweep_run(),
       1,
       R"(plan\.json: run copy\.rope\.s0: --train-len is required)"},
      {"SweepPlanOverTheRunLimit",
       {{"plan.json", R"({"tasks": ["copy"], "methods": "all", "seeds": 100000})"}},
       {"sweep", "emit", "plan.json", "--out", "d", "--slurm"},
       1,
       R"(plan\.json: seeds: the plan has more than 100000 runs)"},
      {"SweepPlanSlurmMemoryNotASize",
       {{"plan.json", sweep_plan(R"("resources": {"mem": "1 GB"})")}},
       {"sweep", "emit", "plan.json", "--out", "d", "--slurm"},
       1,
       R"(plan\.json: resources\.mem: Slurm's --mem: .*got '1 GB')"},
      {"SweepEmitWithoutAFormat",
       {{"plan.json", sweep_plan("")}},
       {"sweep", "emit", "plan.json", "--out", "d"},
       2,
       R"(--slurm is required)"},
      {"SweepWithoutASubcommand",
       {},
       {"sweep"},
       2,
       R"(poslab sweep needs one of run, emit, one or merge)"},
      {"SweepMergeOfNoSweepDirectory",
       {{"d/", ""}},
       {"sweep", "merge", "d", "-o", "s.json"},
       1,
       R"(d/runs\.json is missing: d is not a sweep directory)"},
      {"SweepMergeIntoANpyFile",
       {{"d/", ""}, {"d/runs.json", kSweepRunList}},
       {"sweep", "merge", "d", "-o", "out.npy"},
       2,
       R"(-o writes the summary as JSON: give a name ending in \.json \(got 'out\.npy'\))"},
      {"SweepOneIndexPastTheRuns",
       {{"d/", ""}, {"d/runs.json", kSweepRunList}},
       {"sweep", "one", "d", "1"},
       2,
       R"(INDEX 1 is past the last of the sweep's 1 runs)"},
      {"OptionsWithoutACommand",
       {},
       {"--task", "copy", "--position", "rope", "--train-len", "4", "-o", "out.json"},
       2,
       R"(no command given before '--task', an option of train: write 'poslab train --task \.\.\.')"},
      {"RopeFactorJustBelowOneShownAsTyped",
       {{"x.npy", kQ}},
       {"rope", "--in", "x.npy", "--scaling", "linear", "--factor", "0.9999999", "-o", "out.npy"},
       1,
       R"(linear scaling needs a factor >= 1 \(got 0\.9999999\))"},
      {"RopeFreqsYarnBetasInverted",
       {},
       {"rope-freqs", "--dim", "64", "--scaling", "yarn", "--factor", "4", "--original-len", "4096",
        "--beta-fast", "1", "--beta-slow", "32", "-o", "out.npy"},
       1,
       R"(yarn needs beta_fast >= beta_slow \(got beta_fast 1, beta_slow 32;)"},
      {"RopeYarnBetasInverted",
       {{"x.npy", kQ}},
       {"rope", "--in", "x.npy", "--scaling", "yarn", "--factor", "4", "--original-len", "16",
        "--beta-fast", "1", "--beta-slow", "32", "-o", "out.npy"},
       1,
       R"(yarn needs beta_fast >= beta_slow)"},
      {"LmYarnBetasInverted",
       {{"c.json", kNeoxTiny}, {"m.safetensors", neox_checkpoint(kNeoxTiny)}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2",
        "--rope-scaling", "yarn", "--rope-factor", "4", "--rope-original-len", "16",
        "--rope-beta-fast", "1", "--rope-beta-slow", "32", "-o", "out.npy"},
       1,
       R"(yarn needs beta_fast >= beta_slow)"},
      {"LmTinyRopeFactorShownAsTyped",
       {{"c.json", kNeoxTiny}, {"m.safetensors", neox_checkpoint(kNeoxTiny)}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2",
        "--rope-scaling", "linear", "--rope-factor", "1e-9", "-o", "out.npy"},
       1,
       R"(linear scaling needs a factor >= 1 \(got 1e-09\))"},
      {"LmConfigScalingWithoutFactor",
       {{"c.json", neox_config_with(R"("rope_scaling": {"rope_type": "yarn"})")},
        {"m.safetensors", neox_checkpoint(kNeoxTiny)}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2", "-o",
        "out.npy"},
       1,
       R"(c\.json: rope_scaling: "factor" is required for yarn scaling)"},
      {"LmConfigOriginalLengthZero",
       {{"c.json", neox_config_with(R"("rope_scaling": {"rope_type": "yarn", "factor": 4,
                                        "original_max_position_embeddings": 0})")},
        {"m.safetensors", neox_checkpoint(kNeoxTiny)}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2", "-o",
        "out.npy"},
       1,
       R"(c\.json: rope_scaling: "original_max_position_embeddings" must be a positive integer, got 0)"},
      {"LlamaConfigMissingIntermediateSize",
       {{"c.json", llama_config_with("")}, {"m.safetensors", llama_checkpoint(kLlamaTiny)}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2", "-o",
        "out.npy"},
       1,
       R"(c\.json: missing "intermediate_size" \(a Llama config needs it\))"},
      {"LlamaHeadsNotDividedByKvHeads",
       {{"c.json", llama_config_with(R"("num_key_value_heads": 3, "intermediate_size": 8)")},
        {"m.safetensors", llama_checkpoint(kLlamaTiny)}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2", "-o",
        "out.npy"},
       1,
       R"(c\.json: num_attention_heads 2 is not divisible by num_key_value_heads 3)"},
      {"LlamaRopeScalingWithoutFactor",
       {{"c.json",
         llama_config_with(R"("intermediate_size": 8, "rope_scaling": {"type": "linear"})")},
        {"m.safetensors", llama_checkpoint(kLlamaTiny)}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2", "-o",
        "out.npy"},
       1,
       R"(c\.json: rope_scaling: "factor" is required for linear scaling)"},
      {"LlamaTensorOfTheWrongShape",
       {{"c.json", kLlamaTiny},
        {"m.safetensors", llama_checkpoint(llama_config_with(
                              R"("num_key_value_heads": 1, "intermediate_size": 8)"))}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2", "-o",
        "out.npy"},
       1,
       R"(tensor 'model\.layers\.0\.self_attn\.k_proj\.weight' has shape \(4, 8\), )"
       R"(the config needs \(8, 8\))"},
      {"Qwen2ConfigOnALlamaCheckpointWithoutBiases",
       {{"c.json", R"({"model_type": "qwen2", "vocab_size": 10, "hidden_size": 8,
                       "num_hidden_layers": 1, "num_attention_heads": 2,
                       "num_key_value_heads": 2, "intermediate_size": 8})"},
        {"m.safetensors", llama_checkpoint(kLlamaTiny)}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2", "-o",
        "out.npy"},
       1,
       R"(missing tensor 'model\.layers\.0\.self_attn\.q_proj\.bias')"},
      {"MistralSlidingWindowZero",
       {{"c.json", R"({"model_type": "mistral", "vocab_size": 10, "hidden_size": 8,
                       "num_hidden_layers": 1, "num_attention_heads": 2,
                       "num_key_value_heads": 2, "intermediate_size": 8, "sliding_window": 0})"},
        {"m.safetensors", llama_checkpoint(kLlamaTiny)}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2", "-o",
        "out.npy"},
       1,
       R"(c\.json: "sliding_window" must be positive or null, got 0)"},
      {"LlamaCheckpointWithoutConfig",
       {{"m.safetensors", llama_checkpoint(kLlamaTiny)}},
       {"lm", "--weights", "m.safetensors", "--tokens", "1,2", "-o", "out.npy"},
       1,
       R"(m\.safetensors is a Llama checkpoint: give its config\.json with --config)"},
      {"LmTraceAndOutputNameOneFile",
       {{"c.json", kNeoxTiny}, {"m.safetensors", neox_checkpoint(kNeoxTiny)}},
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2", "--trace",
        "lmt.npy", "-o", "lmt.npy"},
       2,
       R"(--trace and -o name the same file \('lmt\.npy'\))"},
      {"Gpt2TraceAndOutputNameOneFile",
       {{"tiny.json", kTiny}},
       {"gpt2", "--config", "tiny.json", "--tokens", "1", "--trace", "out.npy", "-o", "out.npy"},
       2,
       R"(--trace and -o name the same file)"},
      {"AttentionWeightsAndOutputNameOneFileSpelledTwoWays",
       {{"q.npy", kQ}},
       attention("q.npy", "q.npy", "q.npy", {"--weights", "./out.npy"}),
       2,
       R"(--weights and -o name the same file \('\./out\.npy' and 'out\.npy'\))"},
      // Position surgery (issue 49): every bad value of `poslab surgery`'s options and of the
      // surgery flags of lm and lens, refused naming the flag.
      tiny_neox_case("SurgeryUnknownSweep", "surgery", {"--sweep", "bogus"}, 2,
                     R"(--sweep: unknown sweep 'bogus' \(expected bands, layers, heads or base\))"),
      tiny_neox_case("SurgerySingleSweepIsThePages", "surgery", {"--sweep", "single"}, 2,
                     R"(--sweep: unknown sweep 'single')"),
      tiny_neox_case("SurgeryWithoutSweep", "surgery", {}, 2, R"(--sweep is required)"),
      tiny_neox_case("SurgeryGroupZero", "surgery", {"--sweep", "bands", "--group", "0"}, 2,
                     R"(--group: must be positive \(got 0\))"),
      tiny_neox_case(
          "SurgeryGroupPastThePairs", "surgery", {"--sweep", "bands", "--group", "2"}, 1,
          R"(--group: a group of pairs must be 0 \(16 groups\) or at most the model's 1 pairs \(got 2\))"),
      tiny_neox_case("SurgeryGroupOfAnotherSweep", "surgery", {"--sweep", "layers", "--group", "1"},
                     2, R"(--group is for --sweep bands)"),
      tiny_neox_case("SurgeryBasesNotNumbers", "surgery", {"--sweep", "base", "--bases", "100,x"},
                     2, R"(--bases: 'x' is not a number)"),
      tiny_neox_case("SurgeryBaseOne", "surgery", {"--sweep", "base", "--bases", "100,1"}, 1,
                     R"(--bases: each base must be a finite number above 1 \(got 1\))"),
      tiny_neox_case("SurgeryBaseNaN", "surgery", {"--sweep", "base", "--bases", "nan"}, 1,
                     R"(--bases: each base must be a finite number above 1 \(got nan\))"),
      tiny_neox_case("SurgeryBasesOfAnotherSweep", "surgery",
                     {"--sweep", "bands", "--bases", "100"}, 2, R"(--bases is for --sweep base)"),
      tiny_neox_case("SurgeryWindowOne", "surgery", {"--sweep", "layers", "--window", "1"}, 2,
                     R"(--window: must be at least 2 \(got 1\))"),
      tiny_neox_case("SurgerySeedNegative", "surgery", {"--sweep", "layers", "--seed", "-1"}, 2,
                     R"(--seed: must be non-negative \(got -1\))"),
      tiny_neox_case("SurgeryUnknownPrecision", "surgery",
                     {"--sweep", "layers", "--precision", "half"}, 2, R"(--precision)"),
      {"SurgeryReportIntoANpyFile", kNeoxTinyFiles,
       surgery_args("surgery", "out.npy", {"--sweep", "layers"}), 1,
       R"(surgery writes a JSON report: -o must end in \.json, got 'out\.npy')"},
      {"SurgeryOneToken",
       kNeoxTinyFiles,
       {"surgery", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1", "--sweep",
        "layers", "-o", "out.json"},
       1,
       R"(--tokens: a sweep needs at least 2 tokens per window, for one next-token loss \(got 1\))"},
      {"SurgeryTokenOutsideTheVocabulary",
       kNeoxTinyFiles,
       {"surgery", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,10",
        "--sweep", "layers", "-o", "out.json"},
       1,
       R"(--tokens: token 10 at position 1 is outside the vocabulary \[0, 10\))"},
      {"SurgeryWithoutTokens",
       kNeoxTinyFiles,
       {"surgery", "--weights", "m.safetensors", "--config", "c.json", "--sweep", "layers", "-o",
        "out.json"},
       2,
       R"(give the token ids with --tokens or --tokens-file \(or --text-file\))"},
      tiny_neox_case("SurgeryTokensTwice", "surgery",
                     {"--sweep", "layers", "--text-file", "c.json"}, 2,
                     R"(--tokens excludes --text-file|--text-file excludes --tokens)"),
      {"SurgeryOnGpt2",
       {{"tiny.json", kTiny}, {"g.safetensors", kGpt2Tiny}},
       {"surgery", "--weights", "g.safetensors", "--config", "tiny.json", "--tokens", "1,2,3",
        "--sweep", "heads", "-o", "out.json"},
       1,
       R"(g\.safetensors is a GPT-2 checkpoint: position surgery runs on the RoPE models)"},
      {"SurgeryLabCheckpointInDouble",
       {{"lab.safetensors", kLabCheckpoint}},
       {"surgery", "--weights", "lab.safetensors", "--tokens", "1,2,3", "--sweep", "bands",
        "--precision", "double", "-o", "out.json"},
       1,
       R"(--precision: lab\.safetensors is a lab checkpoint: the lab's model runs in float only)"},
      {"SurgeryLabCheckpointWithAConfig",
       {{"lab.safetensors", kLabCheckpoint}, {"c.json", kNeoxTiny}},
       {"surgery", "--weights", "lab.safetensors", "--config", "c.json", "--tokens", "1,2,3",
        "--sweep", "bands", "-o", "out.json"},
       2,
       R"(--config: lab\.safetensors is a lab checkpoint, which carries its own config)"},
      tiny_neox_case("LmRopeZeroPairsNotARange", "lm", {"--rope-zero-pairs", "a:b"}, 2,
                     R"(--rope-zero-pairs: 'a:b' is not two whole numbers A:B)"),
      tiny_neox_case("LmRopeZeroPairsOneNumber", "lm", {"--rope-zero-pairs", "0:1,1"}, 2,
                     R"(--rope-zero-pairs: '1' is not two whole numbers A:B)"),
      tiny_neox_case("LmRopeZeroPairsEmptyItem", "lm", {"--rope-zero-pairs", "0:1,"}, 2,
                     R"(--rope-zero-pairs: '' is not two whole numbers A:B)"),
      tiny_neox_case(
          "LmRopeZeroPairsPastThePairs", "lm", {"--rope-zero-pairs", "0:2"}, 1,
          R"(--rope-zero-pairs: a zeroed pair range 0:2 must lie inside \[0, R/2\] = \[0, 1\] and not be inverted)"),
      tiny_neox_case("LmRopeZeroPairsInverted", "lm", {"--rope-zero-pairs", "1:0"}, 1,
                     R"(--rope-zero-pairs: a zeroed pair range 1:0 must lie inside)"),
      tiny_neox_case("LmRopeZeroPairsNegative", "lm", {"--rope-zero-pairs", "-1:1"}, 1,
                     R"(--rope-zero-pairs: a zeroed pair range -1:1 must lie inside)"),
      tiny_neox_case("LmNopeLayersNotNumbers", "lm", {"--nope-layers", "0,x"}, 2,
                     R"(--nope-layers: 'x' is not a whole number)"),
      tiny_neox_case("LmNopeLayerPastTheModel", "lm", {"--nope-layers", "1"}, 1,
                     R"(--nope-layers: layer 1 is outside the model's 1 layers \(0 to 0\))"),
      tiny_neox_case("LmNopeLayerNegative", "lm", {"--nope-layers", "-1"}, 1,
                     R"(--nope-layers: layer -1 is outside the model's 1 layers)"),
      tiny_neox_case("LmNopeHeadsNotAPair", "lm", {"--nope-heads", "0"}, 2,
                     R"(--nope-heads: '0' is not two whole numbers A:B)"),
      tiny_neox_case("LmNopeHeadPastTheHeads", "lm", {"--nope-heads", "0:2"}, 1,
                     R"(--nope-heads: head 2 is outside the model's 2 heads per layer \(0 to 1\))"),
      tiny_neox_case("LmNopeHeadPastTheLayers", "lm", {"--nope-heads", "1:0"}, 1,
                     R"(--nope-heads: layer 1 is outside the model's 1 layers)"),
      tiny_neox_case("LmAblateHeadsThreeNumbers", "lm", {"--ablate-heads", "0:1:1"}, 2,
                     R"(--ablate-heads: '0:1:1' is not two whole numbers A:B)"),
      tiny_neox_case("LmAblateHeadsSigned", "lm", {"--ablate-heads", "+0:1"}, 2,
                     R"(--ablate-heads: '\+0:1' is not two whole numbers A:B)"),
      tiny_neox_case("LmAblateHeadPastTheHeads", "lm", {"--ablate-heads", "0:0,0:-1"}, 1,
                     R"(--ablate-heads: head -1 is outside the model's 2 heads per layer)"),
      tiny_neox_case("LmAblateHeadPastTheLayers", "lm", {"--ablate-heads", "3:0"}, 1,
                     R"(--ablate-heads: layer 3 is outside the model's 1 layers)"),
      tiny_neox_case("LmRopeBaseOne", "lm", {"--rope-base", "1"}, 1,
                     R"(--rope-base: a rotation base must be above 1 \(got 1\))"),
      tiny_neox_case("LmRopeBaseZero", "lm", {"--rope-base", "0"}, 1,
                     R"(--rope-base: a rotation base must be above 1 \(got 0\))"),
      tiny_neox_case("LmRopeBaseNegative", "lm", {"--rope-base", "-1e4"}, 1,
                     R"(--rope-base: a rotation base must be above 1 \(got -1e\+04\))"),
      tiny_neox_case("LmRopeBaseNaN", "lm", {"--rope-base", "nan"}, 2,
                     R"(--rope-base: must be finite)"),
      tiny_neox_case("LmRopeLocalBaseInfinite", "lm", {"--rope-local-base", "inf"}, 2,
                     R"(--rope-local-base: must be finite)"),
      tiny_neox_case("LmRopeLocalBaseOnAModelWithoutLocalLayers", "lm",
                     {"--rope-local-base", "100"}, 1,
                     R"(--rope-local-base: GPT-NeoX has no local \(sliding-window\) layers)"),
      {"LlamaRopeLocalBaseWithoutLocalLayers",
       {{"c.json", kLlamaTiny}, {"m.safetensors", llama_checkpoint(kLlamaTiny)}},
       surgery_args("lm", "out.npy", {"--rope-local-base", "100"}),
       1,
       R"(--rope-local-base: Llama has no local \(sliding-window\) layers)"},
      {"LmSurgeryOnGpt2",
       {{"tiny.json", kTiny}, {"g.safetensors", kGpt2Tiny}},
       {"lm", "--weights", "g.safetensors", "--config", "tiny.json", "--tokens", "1",
        "--nope-heads", "0:0", "-o", "out.npy"},
       2,
       R"(--nope-heads: g\.safetensors is a GPT-2 checkpoint: position surgery runs on the RoPE models)"},
      tiny_neox_case("LensNopeLayerPastTheModel", "lens", {"--nope-layers", "1"}, 1,
                     R"(--nope-layers: layer 1 is outside the model's 1 layers)"),
      tiny_neox_case("LensRopeZeroPairsNotARange", "lens", {"--rope-zero-pairs", "0-1"}, 2,
                     R"(--rope-zero-pairs: '0-1' is not two whole numbers A:B)"),
      tiny_neox_case("LensRopeBaseOne", "lens", {"--rope-base", "0.5"}, 1,
                     R"(--rope-base: a rotation base must be above 1 \(got 0\.5\))"),
      {"LensSurgeryOnGpt2",
       {{"tiny.json", kTiny}, {"g.safetensors", kGpt2Tiny}},
       {"lens", "--weights", "g.safetensors", "--config", "tiny.json", "--tokens",
        "1,2,3,4,5,6,7,8", "--ablate-heads", "0:0", "-o", "out.json"},
       1,
       R"(--ablate-heads: g\.safetensors is a GPT-2 checkpoint: position surgery runs)"},
      {"LensLabCheckpointHeadPastTheModel",
       {{"lab.safetensors", kLabCheckpoint}},
       {"lens", "--weights", "lab.safetensors", "--tokens", "1,2,3,4,5,6,7,8", "--ablate-heads",
        "0:99", "-o", "out.json"},
       1,
       R"(--ablate-heads: head 99 is outside the model's \d+ heads per layer)"},
      // Found by the config.json fuzzer: a factor past 2^53 cancelled dynamic NTK's base to 0
      // (frequencies inf, written as null); an overflowing base is now refused.
      {"RopeFreqsNtkBaseOverflows",
       {},
       {"rope-freqs", "--dim", "8", "--scaling", "ntk", "--factor", "1e300", "-o", "out.npy"},
       1,
       R"(ntk scaling with factor 1e\+300 makes the base overflow)"},
      {"TokenOutsideTheVocabulary",
       {{"tiny.json", kTiny}},
       {"gpt2", "--config", "tiny.json", "--tokens", "1,10", "-o", "out.npy"},
       1,
       R"(10)"},
  };
  return table;
}

// Every file and folder under `root` with its bytes (folders as "/").
std::map<std::string, std::string> snapshot(const std::string& root) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string name = std::filesystem::relative(entry.path(), root).string();
    files[name] = entry.is_directory() ? "/" : read_file(entry.path().string());
  }
  return files;
}

class BadInputTable : public Sandbox, public ::testing::WithParamInterface<BadInput> {};

TEST_P(BadInputTable, IsRefusedQuicklyAndTouchesNoFile) {
  const BadInput& c = GetParam();
  put("out.npy", kPrevious);
  put("out.csv", kPrevious);
  for (const auto& [name, bytes] : c.files) {
    if (name.back() == '/') {
      std::filesystem::create_directories(path(name));
    } else {
      put(name, bytes());
    }
  }
  const auto before = snapshot(path(""));

  const RunResult r = run(c.args, kLimitSeconds);
  ASSERT_FALSE(r.timed_out) << c.name << " ran past " << kLimitSeconds << " s";
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal;
  EXPECT_EQ(r.status, c.status) << r.err;
  EXPECT_EQ(r.err.rfind("poslab: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex(c.pattern)))
      << "pattern: " << c.pattern << "\nstderr: " << r.err;
  EXPECT_EQ(snapshot(path("")), before) << "files were added, removed or changed";
}

INSTANTIATE_TEST_SUITE_P(Cli, BadInputTable, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<BadInput>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace poslab::test
