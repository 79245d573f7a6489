// `poslab lens`: how a model's heads use position (the position lens, issue 30's first step).
// Two traced passes of any architecture PosLab runs — the text, and a random sequence of
// period n repeated once (for the induction score) — then, per layer and head, the attention by
// relative distance, the role scores and the role (poslab/analysis/lens.hpp), as JSON; for a
// the shift check: the largest logit change when every position moves by k.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "commands.hpp"
#include "model_input.hpp"
#include "options.hpp"
#include "output.hpp"
#include "poslab/analysis/lens.hpp"
#include "poslab/base/precision.hpp"
#include "poslab/base/random.hpp"
#include "poslab/models/gpt2.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "poslab/models/llama.hpp"

namespace poslab::cli {
namespace {

struct LensArgs {
  std::string weights, config, tokens, tokens_file, out;
  std::string precision = name_of(kPrecisionNames, Precision::kFloat);
  long long period = 0;  // 0: half the text's length
  long long seed = 0;
  long long shift = -1;  // k of the shift check; -1: the text's length
  HeadRoleThresholds thresholds;
};

// A loaded model as the lens sees it: its vocabulary, every layer's attention on tokens and,
// its logits with token t at position offset + t.
struct LensModel {
  long long vocab = 0;
  std::function<std::vector<TensorF>(const std::vector<long long>&)> attention;
  std::function<TensorF(const std::vector<long long>&, long long offset)> logits;
  // Absolute positions (GPT-2's learned ones) or a length-dependent scaling (dynamic NTK): the
  // shift is expected to move the logits.
  bool length_dependent = false;
  long long max_positions = 0;  // GPT-2's n_positions: offset + T stays within; 0: no limit
};

template <class Result>
std::vector<TensorF> attention_maps(Result result) {
  std::vector<TensorF> out;
  for (auto& layer : result.layers) out.push_back(std::move(layer.attention));
  return out;
}

// A RoPE model (GPT-NeoX, Llama): config.json is required, as for `poslab lm`.
template <class Config, class Options, class Forward>
LensModel rope_model(const LensArgs& a, const std::string& config_text, Precision precision,
                     const char* model, Forward forward) {
  require(!a.config.empty(), a.weights + " is a " + model +
                                 " checkpoint: give its config.json with --config (the head "
                                 "counts and rotary settings are not in the tensors)");
  const Config config = Config::from_json(config_text, a.config);
  auto weights =
      std::make_shared<const typename Config::Weights>(load_lm_weights(a.weights, config));
  LensModel out;
  out.vocab = config.dims.vocab_size;
  out.attention = [weights, precision, forward](const std::vector<long long>& t) {
    Options o;
    o.precision = precision;
    o.trace = true;
    o.logits = false;  // the losses instead: (T − 1,) rather than (T, V)
    o.loss_by_position = true;
    o.top_k = 1;
    return attention_maps(forward(*weights, t, o));
  };
  out.logits = [weights, precision, forward](const std::vector<long long>& t, long long offset) {
    Options o;
    o.precision = precision;
    o.top_k = 1;
    o.position_offset = offset;
    return forward(*weights, t, o).logits;
  };
  out.length_dependent = config.rope().scaling == RopeScaling::kDynamic;
  return out;
}

LensModel load_lens_model(const LensArgs& a, Precision precision) {
  const std::string config_text = a.config.empty() ? "" : read_model_config(a.config);
  const LmArchitecture arch = lm_architecture_of_files(a.weights, a.config, config_text);
  if (arch == LmArchitecture::kGpt2) {
    const std::optional<Gpt2Config> config =
        a.config.empty() ? std::nullopt
                         : std::optional<Gpt2Config>(Gpt2Config::from_json(config_text, a.config));
    auto weights = std::make_shared<const Gpt2Weights>(load_gpt2_weights(a.weights, config));
    LensModel out;
    out.vocab = weights->config.dims.vocab_size;
    out.attention = [weights, precision](const std::vector<long long>& t) {
      Gpt2Options o;
      o.precision = precision;
      o.top_k = 1;
      return attention_maps(gpt2_forward(*weights, t, o));
    };
    out.logits = [weights, precision](const std::vector<long long>& t, long long offset) {
      Gpt2Options o;
      o.precision = precision;
      o.top_k = 1;
      o.trace = false;
      o.position_offset = offset;
      return gpt2_forward(*weights, t, o).logits;
    };
    out.max_positions = weights->config.dims.context;
    out.length_dependent = true;  // learned positions: each position its own vector
    return out;
  }
  if (arch == LmArchitecture::kGptNeox) {
    return rope_model<GptNeoxConfig, GptNeoxOptions>(a, config_text, precision, "GPT-NeoX",
                                                     gpt_neox_forward);
  }
  return rope_model<LlamaConfig, LlamaOptions>(a, config_text, precision, "Llama", llama_forward);
}

// n random ids in [0, V), then the same n again: the induction pass's sequence.
std::vector<long long> repeated_sequence(long long n, long long vocab, long long seed) {
  Rng rng{std::uint64_t(seed)};
  std::vector<long long> out(std::size_t(2 * n));
  for (long long i = 0; i < n; ++i) {
    out[std::size_t(i)] = out[std::size_t(i + n)] = (long long)(rng.uniform() * double(vocab));
  }
  return out;
}

nlohmann::json scores_json(const HeadScores& s) {
  return {{"sink", s.sink},
          {"previous_token", s.previous_token},
          {"induction", s.induction},
          {"local", s.local}};
}

void run_lens(const LensArgs& a) {
  check_output_path(a.out);
  require(output_format(a.out) == Format::kJson, "out",
          "lens writes a JSON report: -o must end in .json, got '" + a.out + "'");
  if (a.tokens.empty() && a.tokens_file.empty()) {
    throw UsageError("give the token ids with --tokens or --tokens-file");
  }
  const std::vector<long long> tokens =
      a.tokens_file.empty() ? parse_tokens(a.tokens) : read_token_file(a.tokens_file);
  const long long T = (long long)tokens.size();
  require(T > a.thresholds.local_window, "tokens",
          "the lens needs more tokens than the local window W = " +
              std::to_string(a.thresholds.local_window) + " (got " + std::to_string(T) + ")");
  const long long n = a.period > 0 ? a.period : T / 2;
  require(2 * n <= T, "period",
          "the repeat period n must be at most half the text's " + std::to_string(T) +
              " tokens (the induction pass runs 2n tokens)");
  const Precision precision = parse_precision(a.precision);
  const LensModel model = load_lens_model(a, precision);

  const std::vector<TensorF> text = model.attention(tokens);
  const std::vector<TensorF> repeated = model.attention(repeated_sequence(n, model.vocab, a.seed));
  nlohmann::json heads = nlohmann::json::array();
  std::map<std::string, int> counts;
  for (const auto& role : kHeadRoleNames) counts[role.name] = 0;
  for (std::size_t layer = 0; layer < text.size(); ++layer) {
    const std::vector<HeadScores> scores =
        head_scores(text[layer], repeated[layer], n, a.thresholds);
    const TensorF profile = attention_by_distance(text[layer]);
    const std::size_t L = profile.dim(1);
    for (std::size_t h = 0; h < scores.size(); ++h) {
      const std::string role = name_of(kHeadRoleNames, head_role(scores[h], a.thresholds));
      ++counts[role];
      heads.push_back({{"layer", layer},
                       {"head", h},
                       {"role", role},
                       {"scores", scores_json(scores[h])},
                       {"distance_profile",
                        std::vector<float>(profile.ptr() + h * L, profile.ptr() + (h + 1) * L)}});
    }
  }
  const HeadRoleThresholds& t = a.thresholds;
  nlohmann::json shift = nullptr;
  // GPT-2 reads at most n_positions: its default k fits the text inside, and k = 0 is no check.
  const long long room = model.max_positions > 0 ? model.max_positions - T : T;
  const long long k = a.shift >= 0 ? a.shift : std::min(T, room);
  require(k <= room, "shift",
          "--shift " + std::to_string(k) + " moves the text past n_positions (at most " +
              std::to_string(room) + " here)");
  if (model.logits && k > 0) {
    const LogitChange change = logit_change(model.logits(tokens, 0), model.logits(tokens, k));
    shift = {{"k", k},
             {"max_abs_logit_change", change.max_abs_change},
             {"max_abs_logit", change.max_abs},
             {"relative_change", change.relative()},
             {"invariant_expected", !model.length_dependent}};
  }
  const nlohmann::json report = {{"weights", a.weights},
                                 {"tokens", T},
                                 {"precision", to_string(precision)},
                                 {"induction", {{"period", n}, {"seed", a.seed}}},
                                 {"thresholds",
                                  {{"sink", t.sink},
                                   {"previous_token", t.previous_token},
                                   {"induction", t.induction},
                                   {"local", t.local},
                                   {"local_window", t.local_window}}},
                                 {"role_counts", counts},
                                 {"shift", shift},
                                 {"heads", heads}};
  write_outputs({{a.out, report.dump(1) + "\n"}});
  std::string line;
  for (const auto& role : kHeadRoleNames) {
    line += (line.empty() ? "" : ", ") + std::string(role.name) + " " +
            std::to_string(counts[role.name]);
  }
  std::printf("%zu heads: %s\n", heads.size(), line.c_str());
}

}  // namespace

void add_lens_command(Commands& commands) {
  add_command<LensArgs>(
      commands, "lens",
      "How a model's heads use position: attention by distance and each head's role "
      "(sink, previous-token, induction, local, broad) as JSON",
      [](CLI::App* cmd, LensArgs& a) {
        cmd->add_option("--weights", a.weights, "model.safetensors (GPT-2, GPT-NeoX, Llama family)")
            ->required();
        cmd->add_option("--config", a.config, "its config.json (required for RoPE models)");
        auto* tokens =
            cmd->add_option("--tokens", a.tokens, "token ids of the text, e.g. 464,2068");
        auto* file = cmd->add_option("--tokens-file", a.tokens_file, "token ids as a 1-D .npy");
        tokens->excludes(file);
        cmd->add_option("--period", a.period,
                        "the induction pass's random sequence length n (run twice: 2n tokens); "
                        "default half the text")
            ->check(integer_at_least(1));
        cmd->add_option("--seed", a.seed, "seed of the induction pass's random tokens")
            ->capture_default_str()
            ->check(integer_at_least(0));
        cmd->add_option("--shift", a.shift,
                        "k: the text runs again with every position moved by k and the largest "
                        "logit change is reported (default: the text's length, within GPT-2's "
                        "n_positions)")
            ->check(integer_at_least(0));
        cmd->add_option("--precision", a.precision, "float (SIMD) or double (the reference)")
            ->capture_default_str()
            ->check(parsed_by(parse_precision, choices(kPrecisionNames)));
        cmd->add_option("--local-window", a.thresholds.local_window,
                        "W: a local head's mass lies within the last W tokens")
            ->capture_default_str()
            ->check(integer_at_least(1));
        add_output(cmd, a.out);
      },
      run_lens);
}

}  // namespace poslab::cli
