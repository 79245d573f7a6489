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
#include "poslab/train/checkpoint.hpp"

namespace poslab::cli {
namespace {

struct LensArgs {
  std::string weights, config, tokens, tokens_file, text_file, out;
  std::string precision = name_of(kPrecisionNames, Precision::kFloat);
  long long period = 0;  // 0: half the text's length
  long long seed = 0;
  long long shift = -1;  // k of the shift check; -1: the text's length
  HeadRoleThresholds thresholds;
};

// What a traced pass hands the lens, one layer at a time: its attention (H, T, T) and, for a
// RoPE model asked for its frequency bands, its pair energy (H, R/2 + 1), else null.
using LayerReader =
    std::function<void(std::size_t layer, const TensorF& attention, const TensorF* pair_energy)>;

// A loaded model as the lens sees it: its vocabulary, a traced pass on tokens that hands each
// layer to a reader as it is made (so the lens never holds more than one layer's (H, T, T)),
// and its logits with token t at position offset + t.
struct LensModel {
  long long vocab = 0;
  std::function<void(const std::vector<long long>&, bool bands, const LayerReader&)> visit;
  // RoPE models (GPT-NeoX, Llama): θ_i of each pair and the trained context N the bands are
  // read against (original_max_position_embeddings when scaled, else the context).
  std::vector<double> inv_freq;
  long long trained_context = 0;
  std::function<TensorF(const std::vector<long long>&, long long offset)> logits;
  // Absolute positions (GPT-2's learned ones) or a length-dependent scaling (dynamic NTK): the
  // shift is expected to move the logits.
  bool length_dependent = false;
  long long max_positions = 0;  // GPT-2's n_positions: offset + T stays within; 0: no limit
  // The next-token loss at each position (T − 1,) with token t at positions[t]: models whose
  // positions can be set one by one (the lab's), for the shuffle and constant passes; empty
  // for the others, or where the method needs positions rising along the sequence.
  std::function<std::vector<double>(const std::vector<long long>&,
                                    const std::vector<std::int32_t>&)>
      losses;
};

// The forward options' visitor handing each traced layer to `read`.
LmLayerVisitor to_reader(const LayerReader& read) {
  return [&read](std::size_t layer, LmLayerTrace& trace) {
    read(layer, trace.attention, trace.pair_energy.data.empty() ? nullptr : &trace.pair_energy);
  };
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
  out.visit = [weights, precision, forward](const std::vector<long long>& t, bool bands,
                                            const LayerReader& read) {
    Options o;
    o.precision = precision;
    o.trace = true;
    o.pair_energy = bands;
    o.on_layer = to_reader(read);
    o.logits = false;  // the losses instead: (T − 1,) rather than (T, V)
    o.loss_by_position = true;
    o.top_k = 1;
    forward(*weights, t, o);
  };
  out.logits = [weights, precision, forward](const std::vector<long long>& t, long long offset) {
    Options o;
    o.precision = precision;
    o.top_k = 1;
    o.position_offset = offset;
    return forward(*weights, t, o).logits;
  };
  // The shuffled and constant passes: token t at positions[t].
  out.losses = [weights, precision, forward](const std::vector<long long>& t,
                                             const std::vector<std::int32_t>& positions) {
    Options o;
    o.precision = precision;
    o.logits = false;
    o.loss_by_position = true;
    o.top_k = 1;
    o.positions.assign(positions.begin(), positions.end());
    const TensorF losses = forward(*weights, t, o).losses;
    return std::vector<double>(losses.data.begin(), losses.data.end());
  };
  const RopeOptions rope = config.rope();
  out.length_dependent = rope.scaling == RopeScaling::kDynamic;
  out.inv_freq = rope_frequencies(config.head_dim(), rope).inv_freq;
  out.trained_context = rope.scaling != RopeScaling::kNone && rope.original_length > 0
                            ? rope.original_length
                            : config.dims.context;
  return out;
}

// −log softmax(logits[t])[token t + 1] for t in [0, T − 1): the core's next_token_losses of
// logits (…, T, V), as doubles.
std::vector<double> losses_from_logits(const TensorF& logits, const std::vector<long long>& t) {
  const std::size_t V = logits.dim(logits.ndim() - 1);
  const TensorF losses = next_token_losses(TensorF({t.size(), V}, logits.data), t);
  return std::vector<double>(losses.data.begin(), losses.data.end());
}

// One sequence of token ids at positions offset, offset + 1, ... as the lab's model takes it.
train::Batch lab_batch(const std::vector<long long>& tokens, long long offset, long long vocab,
                       const std::vector<std::int32_t>& positions = {}) {
  train::Batch b;
  b.batch = 1;
  b.length = tokens.size();
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    require(tokens[t] >= 0 && tokens[t] < vocab, "tokens",
            "token id " + std::to_string(tokens[t]) + " is outside the model's vocabulary of " +
                std::to_string(vocab));
    b.tokens.push_back(static_cast<std::int32_t>(tokens[t]));
    b.positions.push_back(positions.empty() ? static_cast<std::int32_t>(offset + (long long)t)
                                            : positions[t]);
  }
  b.targets = b.tokens;  // unscored
  b.loss_mask.assign(b.length, 0.0f);
  return b;
}

// A lab checkpoint (`poslab train --checkpoint`, F32 or F16): the trainer's own model, which
// runs in float. Its positions move the logits unless its method reads only p_i − p_j (the
// table's kRelativeOnly), and may be shuffled where it reads them in any order.
LensModel lab_model(const LensArgs& a, Precision precision) {
  require(precision == Precision::kFloat, "precision",
          a.weights + " is a lab checkpoint: the lab's model runs in float only");
  auto checkpoint = std::make_shared<const train::LabCheckpoint>(train::read_lab_checkpoint(
      read_whole_file(a.weights, std::size_t(1) << 30, "a lab checkpoint"), a.weights));
  auto model = std::make_shared<train::Model>(checkpoint->model);
  const long long V = (long long)checkpoint->model.vocab_size;
  LensModel out;
  out.vocab = V;
  // The trainer's model gives every layer's maps at once (2 layers × 4 heads in the lab).
  out.visit = [checkpoint, model, V](const std::vector<long long>& t, bool,
                                     const LayerReader& read) {
    const TensorF maps = model->attention_maps(checkpoint->params, lab_batch(t, 0, V), 0);
    const std::size_t layers = maps.dim(0), per_layer = maps.size() / layers;
    for (std::size_t l = 0; l < layers; ++l) {
      const TensorF layer(
          Shape{maps.dim(1), maps.dim(2), maps.dim(3)},
          std::vector<float>(maps.ptr() + l * per_layer, maps.ptr() + (l + 1) * per_layer));
      read(l, layer, nullptr);
    }
  };
  out.logits = [checkpoint, model, V](const std::vector<long long>& t, long long offset) {
    const TensorF logits = model->logits(checkpoint->params, lab_batch(t, offset, V));
    return TensorF({logits.dim(1), logits.dim(2)}, logits.data);
  };
  const PositionMethod p = checkpoint->model.position;
  // Shuffled or constant positions only for a method that reads them in any order.
  if (supports(p, kReadsAnyOrder)) {
    out.losses = [checkpoint, model, V](const std::vector<long long>& t,
                                        const std::vector<std::int32_t>& positions) {
      return losses_from_logits(model->logits(checkpoint->params, lab_batch(t, 0, V, positions)),
                                t);
    };
  }
  out.length_dependent = !supports(p, kRelativeOnly);
  if (p == PositionMethod::kLearned) out.max_positions = (long long)checkpoint->model.n_positions;
  return out;
}

bool is_lab_checkpoint(const std::string& weights) {
  const SafetensorsHeader header = read_safetensors_header(weights);
  const auto format = header.metadata.find("format");
  return format != header.metadata.end() && format->second == "poslab-train";
}

LensModel load_lens_model(const LensArgs& a, Precision precision) {
  if (is_lab_checkpoint(a.weights)) return lab_model(a, precision);
  const std::string config_text = a.config.empty() ? "" : read_model_config(a.config);
  const LmArchitecture arch = lm_architecture_of_files(a.weights, a.config, config_text);
  if (arch == LmArchitecture::kGpt2) {
    const std::optional<Gpt2Config> config =
        a.config.empty() ? std::nullopt
                         : std::optional<Gpt2Config>(Gpt2Config::from_json(config_text, a.config));
    auto weights = std::make_shared<const Gpt2Weights>(load_gpt2_weights(a.weights, config));
    LensModel out;
    out.vocab = weights->config.dims.vocab_size;
    out.visit = [weights, precision](const std::vector<long long>& t, bool,
                                     const LayerReader& read) {
      Gpt2Options o;
      o.precision = precision;
      o.top_k = 1;
      o.on_layer = to_reader(read);
      gpt2_forward(*weights, t, o);
    };
    out.logits = [weights, precision](const std::vector<long long>& t, long long offset) {
      Gpt2Options o;
      o.precision = precision;
      o.top_k = 1;
      o.trace = false;
      o.position_offset = offset;
      return gpt2_forward(*weights, t, o).logits;
    };
    // The shuffled and constant passes: token t at positions[t].
    out.losses = [weights, precision](const std::vector<long long>& t,
                                      const std::vector<std::int32_t>& positions) {
      Gpt2Options o;
      o.precision = precision;
      o.top_k = 1;
      o.trace = false;
      o.positions.assign(positions.begin(), positions.end());
      return losses_from_logits(gpt2_forward(*weights, t, o).logits, t);
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
  if (a.tokens.empty() && a.tokens_file.empty() && a.text_file.empty()) {
    throw UsageError("give the token ids with --tokens or --tokens-file (or --text-file)");
  }
  std::vector<long long> tokens;
  if (!a.text_file.empty()) {
    // A byte-level model's ids are the bytes; at most 64 KiB of them, the lens's whole trace.
    for (const char c : read_whole_file(a.text_file, std::size_t(1) << 16, "the lens's text")) {
      tokens.push_back(static_cast<unsigned char>(c));
    }
  } else {
    tokens = a.tokens_file.empty() ? parse_tokens(a.tokens) : read_token_file(a.tokens_file);
  }
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

  const bool bands = !model.inv_freq.empty();
  // The induction scores first, from the repeated sequence, one layer at a time; then the text.
  std::vector<std::vector<double>> induction;
  model.visit(repeated_sequence(n, model.vocab, a.seed), false,
              [&](std::size_t, const TensorF& attention, const TensorF*) {
                std::vector<double> by_head;
                for (const HeadScores& s : head_scores(attention, attention, n, a.thresholds)) {
                  by_head.push_back(s.induction);
                }
                induction.push_back(std::move(by_head));
              });
  nlohmann::json heads = nlohmann::json::array();
  std::map<std::string, int> counts;
  for (const auto& role : kHeadRoleNames) counts[role.name] = 0;
  // A head spreading its energy evenly over the R/2 pairs and the unrotated dims would put
  // `uniform` of it on the turning pairs: a positional head is at least `positional` of the
  // way from there to all of it (random weights stay near `uniform`).
  std::vector<float> even(model.inv_freq.size() + 1, 1.0f / float(model.inv_freq.size() + 1));
  const double uniform =
      bands ? turning_pair_share(even.data(), model.inv_freq, model.trained_context) : 0.0;
  const double positional_at = uniform + a.thresholds.positional * (1.0 - uniform);
  int positional = 0;
  model.visit(
      tokens, bands, [&](std::size_t layer, const TensorF& attention, const TensorF* energy) {
        std::vector<HeadScores> scores = head_scores(attention, TensorF{}, n, a.thresholds);
        const TensorF profile = attention_by_distance(attention);
        const std::size_t L = profile.dim(1);
        for (std::size_t h = 0; h < scores.size(); ++h) {
          scores[h].induction = induction.at(layer).at(h);
          const std::string role = name_of(kHeadRoleNames, head_role(scores[h], a.thresholds));
          ++counts[role];
          nlohmann::json head = {
              {"layer", layer},
              {"head", h},
              {"role", role},
              {"scores", scores_json(scores[h])},
              {"distance_profile",
               std::vector<float>(profile.ptr() + h * L, profile.ptr() + (h + 1) * L)}};
          if (energy) {
            const float* row = energy->ptr() + h * energy->dim(1);
            const double share = turning_pair_share(row, model.inv_freq, model.trained_context);
            const bool is_positional = share >= positional_at;
            positional += is_positional;
            head["pair_energy"] = std::vector<float>(row, row + energy->dim(1));
            head["turning_share"] = share;
            head["bands"] = is_positional ? "positional" : "semantic";
          }
          heads.push_back(std::move(head));
        }
      });
  // RoPE's frequency bands: which pairs turn within the trained context, and how many heads
  // lean on them.
  nlohmann::json rope_bands = nullptr;
  if (bands) {
    std::vector<double> wavelength;
    for (double theta : model.inv_freq) wavelength.push_back(6.283185307179586 / theta);
    rope_bands = {{"inv_freq", model.inv_freq},
                  {"wavelength", wavelength},
                  {"trained_context", model.trained_context},
                  {"uniform_share", uniform},
                  {"positional_threshold", a.thresholds.positional},
                  {"positional_share", positional_at},
                  {"positional_heads", positional},
                  {"semantic_heads", int(heads.size()) - positional}};
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
  // How much the model uses position: the loss by position with positions 0..T−1, shuffled
  // (a seeded permutation) and all 0.
  nlohmann::json shuffle = nullptr;
  if (model.losses) {
    std::vector<std::int32_t> index(std::size_t(T), 0), shuffled, constant(std::size_t(T), 0);
    for (long long t = 0; t < T; ++t) index[std::size_t(t)] = std::int32_t(t);
    shuffled = index;
    Rng rng{std::uint64_t(a.seed) + 0x5A17u};
    for (std::size_t i = shuffled.size(); i > 1; --i) {  // Fisher-Yates
      std::swap(shuffled[i - 1], shuffled[std::size_t(rng.uniform() * double(i))]);
    }
    const auto mean = [](const std::vector<double>& v) {
      double s = 0;
      for (double x : v) s += x;
      return v.empty() ? 0.0 : s / double(v.size());
    };
    const std::vector<double> base = model.losses(tokens, index);
    const std::vector<double> moved = model.losses(tokens, shuffled);
    const std::vector<double> flat = model.losses(tokens, constant);
    shuffle = {
        {"loss_by_position", {{"index", base}, {"shuffled", moved}, {"constant", flat}}},
        {"mean_loss", {{"index", mean(base)}, {"shuffled", mean(moved)}, {"constant", mean(flat)}}},
        {"seed", a.seed}};
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
                                 {"shuffle", shuffle},
                                 {"rope_bands", rope_bands},
                                 {"heads", heads}};
  write_outputs({{a.out, report.dump(1) + "\n"}});
  std::string line;
  for (const auto& role : kHeadRoleNames) {
    line += (line.empty() ? "" : ", ") + std::string(role.name) + " " +
            std::to_string(counts[role.name]);
  }
  std::printf("%zu heads: %s\n", heads.size(), line.c_str());
  if (bands) {
    std::printf(
        "RoPE bands: %d positional, %zu semantic (turning-pair share >= %.3f; %.3f if "
        "spread evenly)\n",
        positional, heads.size() - std::size_t(positional), positional_at, uniform);
  }
}

}  // namespace

void add_lens_command(Commands& commands) {
  add_command<LensArgs>(
      commands, "lens",
      "How a model's heads use position: attention by distance and each head's role "
      "(sink, previous-token, induction, local, broad) as JSON",
      [](CLI::App* cmd, LensArgs& a) {
        cmd->add_option("--weights", a.weights,
                        "model.safetensors (GPT-2, GPT-NeoX, Llama family, or a lab checkpoint "
                        "of poslab train)")
            ->required();
        cmd->add_option("--config", a.config, "its config.json (required for RoPE models)");
        auto* tokens =
            cmd->add_option("--tokens", a.tokens, "token ids of the text, e.g. 464,2068");
        auto* file = cmd->add_option("--tokens-file", a.tokens_file, "token ids as a 1-D .npy");
        auto* text = cmd->add_option("--text-file", a.text_file,
                                     "a byte-level model's text: its bytes are the ids (a lab "
                                     "text model, poslab train --task text)");
        tokens->excludes(file);
        text->excludes(tokens);
        text->excludes(file);
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
