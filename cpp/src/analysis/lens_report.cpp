// The position lens as one call (poslab/analysis/lens_report.hpp): the passes, in the order
// that keeps one layer's (H, T, T) at a time.
#include "poslab/analysis/lens_report.hpp"

#include <algorithm>

#include "poslab/base/errors.hpp"
#include "poslab/base/format.hpp"
#include "poslab/base/random.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab {
namespace {

// The induction score of every head, layer by layer, from the repeated sequence.
std::vector<std::vector<double>> induction_scores(const LensModel& model, long long n,
                                                  const LensSettings& s) {
  std::vector<std::vector<double>> out;
  model.visit(repeated_sequence(n, model.vocab, s.seed), false, false,
              [&](std::size_t, const TensorF& attention, const TensorF*) {
                std::vector<double> by_head;
                for (const HeadScores& h : head_scores(attention, attention, n, s.thresholds)) {
                  by_head.push_back(h.induction);
                }
                out.push_back(std::move(by_head));
              });
  return out;
}

// k of the shift check, checked before any pass runs.
long long shift_of(const LensModel& model, long long T, long long requested) {
  // GPT-2 reads at most n_positions: its default k fits the text inside; k = 0 is no check.
  const long long room = model.max_positions > 0 ? model.max_positions - T : T;
  const long long k = requested >= 0 ? requested : std::min(T, room);
  require(k <= room, "shift",
          "a shift of " + std::to_string(k) + " moves the text past n_positions (at most " +
              std::to_string(room) + " here)");
  return k;
}

// How much the model uses position: the loss by position with positions 0..T−1 (the text
// pass's), shuffled (a seeded permutation) and all 0.
LensShuffle shuffle_of(const LensModel& model, const std::vector<long long>& tokens,
                       std::vector<double> in_order, long long seed) {
  const std::size_t T = tokens.size();
  std::vector<std::int32_t> shuffled(T, 0), constant(T, 0);
  for (std::size_t t = 0; t < T; ++t) shuffled[t] = std::int32_t(t);
  Rng rng{std::uint64_t(seed) + 0x5A17u};
  for (std::size_t i = shuffled.size(); i > 1; --i) {  // Fisher-Yates
    std::swap(shuffled[i - 1], shuffled[std::size_t(rng.uniform() * double(i))]);
  }
  return {std::move(in_order), model.losses(tokens, shuffled), model.losses(tokens, constant)};
}

// The pairs θ_i a head is read against, and the turning share that makes it positional.
LensPairs lens_pairs(const std::vector<double>& inv_freq, long long context, double positional) {
  LensPairs p;
  p.inv_freq = inv_freq;
  for (double theta : inv_freq) p.wavelength.push_back(2.0 * formulas::kPi / theta);
  // A head spreading its energy evenly over the R/2 pairs and the unrotated dims would put
  // `uniform` of it on the turning pairs: a positional head is at least `positional` of the
  // way from there to all of it (random weights stay near `uniform`).
  const std::vector<float> even(inv_freq.size() + 1, 1.0f / float(inv_freq.size() + 1));
  p.uniform_share = turning_pair_share(even.data(), inv_freq, context);
  p.positional_share = p.uniform_share + positional * (1.0 - p.uniform_share);
  return p;
}

}  // namespace

double LensShuffle::mean(const std::vector<double>& losses) {
  double s = 0;
  for (double x : losses) s += x;
  return losses.empty() ? 0.0 : s / double(losses.size());
}

int LensReport::count(HeadRole role) const {
  return int(std::count_if(heads.begin(), heads.end(),
                           [role](const LensHead& h) { return h.role == role; }));
}

std::vector<long long> repeated_sequence(long long n, long long vocab, long long seed) {
  Rng rng{std::uint64_t(seed)};
  std::vector<long long> out(std::size_t(2 * n));
  for (long long i = 0; i < n; ++i) {
    out[std::size_t(i)] = out[std::size_t(i + n)] = (long long)(rng.uniform() * double(vocab));
  }
  return out;
}

LensReport lens_report(const LensModel& model, const std::vector<long long>& tokens,
                       const LensSettings& s) {
  const HeadRoleThresholds& t = s.thresholds;
  LensReport r;
  r.weights = s.weights;
  r.precision = model.precision;
  r.tokens = (long long)tokens.size();
  r.seed = s.seed;
  r.thresholds = t;
  require(r.tokens > t.local_window, "tokens",
          "the lens needs more tokens than the local window W = " + std::to_string(t.local_window) +
              " (got " + std::to_string(r.tokens) + ")");
  if (model.working_set) {
    const std::uint64_t need = model.working_set(r.tokens);
    require(need <= s.memory_limit, "tokens",
            "the lens over T = " + std::to_string(r.tokens) + " tokens would hold about " +
                format_bytes(need) +
                " at once (each layer's (H, T, T) attention maps grow as "
                "T²), over the limit of " +
                format_bytes(s.memory_limit) + ": give a shorter text");
  }
  r.period = s.period > 0 ? s.period : r.tokens / 2;
  require(2 * r.period <= r.tokens, "period",
          "the repeat period n must be at most half the text's " + std::to_string(r.tokens) +
              " tokens (the induction pass runs 2n tokens)");
  const long long k = shift_of(model, r.tokens, s.shift);

  const std::vector<std::vector<double>> induction = induction_scores(model, r.period, s);
  if (!model.inv_freq.empty()) {
    LensBands& b = r.bands.emplace();
    b.trained_context = model.trained_context;
    static_cast<LensPairs&>(b) = lens_pairs(model.inv_freq, b.trained_context, t.positional);
    for (const std::vector<double>& layer : model.layer_inv_freq) {
      b.layers.push_back(lens_pairs(layer, b.trained_context, t.positional));
    }
  }
  const bool shifted = model.logits && k > 0;
  LensOutputs text = model.visit(
      tokens, r.bands.has_value(), shifted || bool(model.losses),
      [&](std::size_t layer, const TensorF& attention, const TensorF* energy) {
        std::vector<HeadScores> scores = head_scores(attention, TensorF{}, r.period, t);
        const TensorF profile = attention_by_distance(attention);
        const std::size_t L = profile.dim(1);
        for (std::size_t h = 0; h < scores.size(); ++h) {
          LensHead& head = r.heads.emplace_back();
          head.layer = layer;
          head.head = h;
          head.scores = scores[h];
          head.scores.induction = induction.at(layer).at(h);
          head.role = head_role(head.scores, t);
          head.distance_profile.assign(profile.ptr() + h * L, profile.ptr() + (h + 1) * L);
          if (energy && r.bands) {
            const float* row = energy->ptr() + h * energy->dim(1);
            head.pair_energy.assign(row, row + energy->dim(1));
            const LensPairs& pairs = r.bands->of_layer(layer);
            head.turning_share = turning_pair_share(row, pairs.inv_freq, r.bands->trained_context);
            head.positional = head.turning_share >= pairs.positional_share;
            r.bands->positional_heads += head.positional;
          }
        }
      });
  if (shifted) {
    r.shift =
        LensShift{k, logit_change(text.logits, model.logits(tokens, k)), !model.length_dependent};
  }
  if (model.losses) r.shuffle = shuffle_of(model, tokens, std::move(text.losses), s.seed);
  return r;
}

TensorF lens_attention(const LensModel& model, const std::vector<long long>& tokens,
                       long long layer, long long head) {
  require(layer >= 0, "layer", "layer must be non-negative");
  require(head >= 0, "head", "head must be non-negative");
  TensorF out;
  std::size_t layers = 0, heads = 0;
  model.visit(tokens, false, false, [&](std::size_t l, const TensorF& attention, const TensorF*) {
    ++layers;
    heads = attention.dim(0);
    if ((long long)l != layer || head >= (long long)heads) return;
    const std::size_t T = attention.dim(1);
    out = TensorF({T, T}, std::vector<float>(attention.ptr() + std::size_t(head) * T * T,
                                             attention.ptr() + (std::size_t(head) + 1) * T * T));
  });
  require(layer < (long long)layers, "layer",
          "layer " + std::to_string(layer) + " is past the model's " + std::to_string(layers));
  require(!out.data.empty(), "head",
          "head " + std::to_string(head) + " is past the layer's " + std::to_string(heads));
  return out;
}

}  // namespace poslab
