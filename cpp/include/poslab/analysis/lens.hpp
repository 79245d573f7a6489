// The position lens's measures of one layer's attention (H, T, T): how each head spreads its
// weight over relative distance, and its role, scored by written definitions (docs/lens.md):
//   previous-token: the mean weight on j = i − 1 (rows i >= 1);
//   sink:           the mean weight on the first token (rows i >= 1);
//   induction:      on a sequence that repeats a random one of period n, the mean weight on
//                   j = i − n + 1, the token after the previous occurrence (rows i >= n);
//   local:          the mean weight within the last W tokens, j in (i − W, i] (rows i >= W);
//   broad:          none of these reaches its threshold.
// A head's role is the first of sink, previous-token, induction and local whose score reaches
// its threshold: a sink head's mass is far from i, a previous-token head is also local, so the
// narrower definitions come first. Sums in double.
#pragma once

#include <vector>

#include "poslab/base/names.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab {

enum class HeadRole { kSink, kPreviousToken, kInduction, kLocal, kBroad };
inline constexpr Named<HeadRole> kHeadRoleNames[] = {{HeadRole::kSink, "sink"},
                                                     {HeadRole::kPreviousToken, "previous-token"},
                                                     {HeadRole::kInduction, "induction"},
                                                     {HeadRole::kLocal, "local"},
                                                     {HeadRole::kBroad, "broad"}};

struct HeadRoleThresholds {
  // RoPE models: a head is positional when its turning_pair_share is at least this far from
  // the share of energy spread evenly over the pairs (u) to all of it: u + positional·(1 − u).
  double positional = 0.5;
  double sink = 0.5;
  double previous_token = 0.5;
  double induction = 0.4;
  double local = 0.7;
  long long local_window = 4;  // W
};

struct HeadScores {
  double sink = 0.0, previous_token = 0.0, induction = 0.0, local = 0.0;
};

// Each head's mean weight at distance d = i − j, over the rows i >= d: (H, T). Throws Error
// (field "attention") unless attention is (H, T, T).
TensorF attention_by_distance(const TensorF& attention);

// The scores of every head of one layer: sink, previous-token and local on `attention` (a
// text), induction on `repeated` (the same layer on a sequence of period `period`, T >= 2n;
// empty: induction 0). Throws Error for shapes that disagree or a period outside [1, T/2].
std::vector<HeadScores> head_scores(const TensorF& attention, const TensorF& repeated,
                                    long long period, const HeadRoleThresholds& thresholds = {});

HeadRole head_role(const HeadScores& scores, const HeadRoleThresholds& thresholds = {});

// RoPE's frequency bands (Barbero et al. 2025): a head's score q_i·k_j is the sum over its
// rotation pairs p (`style`'s pairs over the first R dims) of c_p(i, j) = q_i[a]·k_j[a] +
// q_i[b]·k_j[b], plus one term for the dims past R, which are not rotated. A pair's energy is
// Σ a[i, j]·|c_p(i, j)| over j <= i, weighted by the head's own attention a: where the scores
// it acts on come from. q and k (H, T, d) after rotation, attention (H, T, T). Returns
// (H, R/2 + 1), each head's row summing to 1 (all 0 for a head whose scores are all 0).
// Throws Error for shapes that disagree, or R odd or beyond d.
TensorF rope_pair_energy(const TensorF& q, const TensorF& k, const TensorF& attention,
                         long long rotary_dim, RopeStyle style);

// The share of one head's pair energy (a row of rope_pair_energy, R/2 + 1 values) in the pairs
// that turn at least once within `context` positions (wavelength 2π/θ_i <= context): the high
// frequencies Barbero et al. find positional heads built on; the rest (slow pairs and the
// unrotated dims) carry meaning.
double turning_pair_share(const float* energy, const std::vector<double>& inv_freq,
                          long long context);

// The shift check's measure: the largest |b − a| over two logit tensors of one shape, and the
// largest |a| it is read against. Throws Error when the shapes differ.
struct LogitChange {
  double max_abs_change = 0.0, max_abs = 0.0;
  double relative() const { return max_abs > 0.0 ? max_abs_change / max_abs : 0.0; }
};
LogitChange logit_change(const TensorF& a, const TensorF& b);

}  // namespace poslab
