// Each op of the trainer (src/train/ops.hpp) on its own: its backward against central finite
// differences in double of the scalar r·op(x) for a fixed random r, over every input.
//
// Tolerance policy: double, h = 1e-6, O(1) values: |analytic − fd| ≤ 1e-7 + 1e-6·|fd|.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>
#include <vector>

#include "poslab/base/random.hpp"
#include "poslab/positions/formulas.hpp"
#include "train/ops.hpp"

namespace poslab::train::ops {
namespace {

using Vec = std::vector<double>;

Vec random_vec(std::size_t n, std::uint64_t seed, double scale = 1.0) {
  Rng rng(seed);
  Vec v(n);
  for (double& x : v) x = scale * rng.normal();
  return v;
}

double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// f(inputs) → output; grads: the analytic gradient of r·output for each input.
void expect_matches_fd(std::vector<Vec*> inputs, const std::function<Vec()>& f,
                       const std::vector<Vec>& grads, const Vec& r) {
  const double h = 1e-6;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    Vec& x = *inputs[k];
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double keep = x[i];
      x[i] = keep + h;
      const double up = dot(r, f());
      x[i] = keep - h;
      const double down = dot(r, f());
      x[i] = keep;
      const double fd = (up - down) / (2 * h);
      ASSERT_NEAR(grads[k][i], fd, 1e-7 + 1e-6 * std::abs(fd)) << "input " << k << " [" << i << "]";
    }
  }
}

TEST(TrainOps, LinearBackward) {
  const std::size_t n = 5, c = 4, oc = 3;
  Vec in = random_vec(n * c, 1), w = random_vec(c * oc, 2), b = random_vec(oc, 3);
  const Vec r = random_vec(n * oc, 4);
  auto f = [&] {
    Vec out(n * oc);
    linear_forward(out.data(), in.data(), w.data(), b.data(), n, c, oc);
    return out;
  };
  Vec din(n * c, 0.0), dw(c * oc, 0.0), db(oc, 0.0);
  linear_backward(din.data(), dw.data(), db.data(), r.data(), in.data(), w.data(), n, c, oc);
  expect_matches_fd({&in, &w, &b}, f, {din, dw, db}, r);
  // din_fresh overwrites din (whatever it held) and still accumulates dw and db.
  Vec fresh(n * c, 7.0), dw2 = dw, db2 = db;
  linear_backward(fresh.data(), dw2.data(), db2.data(), r.data(), in.data(), w.data(), n, c, oc,
                  true);
  for (std::size_t i = 0; i < din.size(); ++i) EXPECT_EQ(fresh[i], din[i]);
  // (2·dw up to the order of the sums)
  for (std::size_t i = 0; i < dw.size(); ++i) EXPECT_NEAR(dw2[i], 2 * dw[i], 1e-12);
  for (std::size_t i = 0; i < db.size(); ++i) EXPECT_NEAR(db2[i], 2 * db[i], 1e-12);
}

TEST(TrainOps, LayerNormBackward) {
  const std::size_t n = 4, c = 6;
  Vec in = random_vec(n * c, 1), w = random_vec(c, 2), b = random_vec(c, 3);
  const Vec r = random_vec(n * c, 4);
  Vec mean(n), rstd(n);
  auto f = [&] {
    Vec out(n * c);
    layernorm_forward(out.data(), mean.data(), rstd.data(), in.data(), w.data(), b.data(), n, c,
                      1e-5);
    return out;
  };
  f();
  Vec din(n * c, 0.0), dw(c, 0.0), db(c, 0.0);
  layernorm_backward(din.data(), dw.data(), db.data(), r.data(), in.data(), w.data(), mean.data(),
                     rstd.data(), n, c);
  expect_matches_fd({&in, &w, &b}, f, {din, dw, db}, r);
}

TEST(TrainOps, GeluTanhBackward) {
  Vec in = random_vec(40, 1, 2.0);
  const Vec r = random_vec(40, 2);
  auto f = [&] {
    Vec out(in.size());
    gelu_tanh_forward(out.data(), in.data(), in.size());
    return out;
  };
  Vec din(in.size(), 0.0);
  gelu_tanh_backward(din.data(), r.data(), in.data(), f().data(), in.size());
  expect_matches_fd({&in}, f, {din}, r);
}

// The float backward reads tanh off the forward's output: within 1e-5 of the double slope,
// at 0, near it and far out on both sides.
TEST(TrainOps, GeluTanhBackwardInFloatMatchesDouble) {
  std::vector<float> x;
  for (float v : {0.0f, 1e-30f, -1e-6f, 1e-3f, -0.5f, 0.7f, 2.0f, -3.0f, 6.0f, -9.0f, 30.0f})
    x.push_back(v);
  for (int i = -400; i <= 400; ++i) x.push_back(0.01f * static_cast<float>(i));
  std::vector<float> y(x.size()), ones(x.size(), 1.0f), slope(x.size(), 0.0f);
  gelu_tanh_forward(y.data(), x.data(), x.size());
  gelu_tanh_backward(slope.data(), ones.data(), x.data(), y.data(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double xd = x[i];
    const double want =
        gelu_tanh_slope(xd, std::tanh(0.7978845608028654 * (xd + 0.044715 * xd * xd * xd)));
    ASSERT_NEAR(slope[i], want, 1e-5 * (1 + std::abs(xd))) << "x = " << x[i];
  }
}

// Attention with each way positions enter it, over sorted random positions; head width 4 runs
// the generic loops, 16 the unrolled fixed-width ones (ops::with_head_dim).
class TrainOpsAttention : public ::testing::TestWithParam<std::tuple<int, std::size_t>> {};

TEST_P(TrainOpsAttention, Backward) {
  const std::size_t B = 2, L = 5, H = 2, d = std::get<1>(GetParam()), E = H * d, NB = 32;
  AttentionPlan plan;
  plan.batch = B;
  plan.length = L;
  plan.heads = H;
  plan.head_dim = d;
  const std::int32_t pos[B * L] = {0, 3, 4, 9, 30, 1, 2, 6, 7, 8};
  const int kind = std::get<0>(GetParam());  // 0 none, 1 rope, 2 alibi, 3 t5, 5 xpos
  const bool xpos = kind == 5;               // gptj pairs, queries and keys scaled apart
  plan.rope = kind == 1 || xpos;
  plan.interleaved = xpos;
  if (plan.rope) {
    for (std::size_t r = 0; r < B * L; ++r) {
      for (std::size_t i = 0; i < d / 2; ++i) {
        const double a = pos[r] * std::pow(10000.0, -2.0 * i / d);
        // scale base 4: ζ^(±e) far from 1 over these positions, so a wrong side shows.
        const double q_scale =
            xpos ? formulas::decay_scale(int(i), int(d), pos[r], 31, 4.0, false) : 1.0;
        const double k_scale =
            xpos ? formulas::decay_scale(int(i), int(d), pos[r], 31, 4.0, true) : 1.0;
        plan.cos.push_back(std::cos(a) * q_scale);
        plan.sin.push_back(std::sin(a) * q_scale);
        if (!xpos) continue;
        plan.key_cos.push_back(std::cos(a) * k_scale);
        plan.key_sin.push_back(std::sin(a) * k_scale);
      }
    }
  }
  for (std::size_t b = 0; b < B && kind >= 2; ++b) {
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j < L; ++j) {
        const int q = pos[b * L + i], k = pos[b * L + j];
        if (kind == 2) plan.alibi_distance.push_back(std::abs(q - k));
        if (kind == 3) plan.t5_bucket.push_back(formulas::t5_bucket(k - q, false, NB, 128));
      }
    }
  }
  if (kind == 2) plan.alibi_slopes = {0.5, 0.25};
  Vec qkv = random_vec(B * L * 3 * E, 1), rel = random_vec(NB * H, 2);
  const Vec r = random_vec(B * L * E, 3);
  Vec q(B * L * E), k(B * L * E), v(B * L * E), att(B * H * L * L);
  auto f = [&] {
    Vec out(B * L * E);
    attention_forward(out.data(), q.data(), k.data(), v.data(), att.data(), qkv.data(),
                      kind == 3 ? rel.data() : nullptr, plan);
    return out;
  };
  f();
  Vec dqkv(qkv.size()), drel(rel.size(), 0.0), dq(q.size()), dk(k.size()), dv(v.size()), datt(L);
  attention_backward(dqkv.data(), drel.data(), dq.data(), dk.data(), dv.data(), datt.data(),
                     r.data(), q.data(), k.data(), v.data(), att.data(), plan);
  if (kind == 3) {
    expect_matches_fd({&qkv, &rel}, f, {dqkv, drel}, r);
  } else {
    expect_matches_fd({&qkv}, f, {dqkv}, r);
  }
  // Causal: weights above the diagonal are zero and each row sums to one.
  for (std::size_t row = 0; row < B * H * L; ++row) {
    double sum = 0;
    for (std::size_t j = 0; j < L; ++j) {
      sum += att[row * L + j];
      if (j > row % L) {
        EXPECT_EQ(att[row * L + j], 0.0);
      }
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
}

INSTANTIATE_TEST_SUITE_P(Positions, TrainOpsAttention,
                         ::testing::Combine(::testing::Values(0, 1, 2, 3, 5),
                                            ::testing::Values(std::size_t{4}, std::size_t{16})));

// FIRE's bias on its own: forward against the formula written out, backward against finite
// differences for every packed parameter. unit = 2.75 puts the threshold L = |s|·2.75 between
// the positions, so both sides of max(L, p_i + 1) are taken; c and s negative check the
// absolute values.
TEST(TrainOps, FireBiasBackward) {
  const std::size_t B = 2, L = 5, H = 3, K = 4;
  const double unit = 2.75, eps = 1e-6;
  const std::int32_t pos[B * L] = {0, 1, 2, 3, 4, 1, 2, 6, 7, 11};
  Vec fire = random_vec(2 + 2 * K + K * H, 1);
  fire[0] = -0.3;  // c
  fire[1] = 1.1;   // s: L = 3.025
  const Vec r = random_vec(B * H * L * L, 2);
  auto f = [&] {
    Vec bias(B * H * L * L, 0.0);
    fire_forward(bias.data(), fire.data(), pos, B, L, H, K, unit, eps);
    return bias;
  };
  const Vec bias = f();
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j <= i; ++j) {
        const double pi = pos[b * L + i], pj = pos[b * L + j];
        const double norm = std::max(std::abs(fire[1]) * unit, pi + 1);
        const double u = std::log(0.3 * (pi - pj) + 1) / (std::log(0.3 * norm + 1) + eps);
        for (std::size_t h = 0; h < H; ++h) {
          double want = 0;
          for (std::size_t k = 0; k < K; ++k) {
            want += std::max(0.0, fire[2 + k] * u + fire[2 + K + k]) * fire[2 + 2 * K + k * H + h];
          }
          ASSERT_NEAR(bias[((b * H + h) * L + i) * L + j], want, 1e-12);
        }
      }
    }
  }
  Vec dfire(fire.size(), 0.0);
  fire_backward(dfire.data(), r.data(), fire.data(), pos, B, L, H, K, unit, eps);
  expect_matches_fd({&fire}, f, {dfire}, r);
  EXPECT_NE(dfire[1], 0.0);  // some query's normaliser was the threshold
  // s = −1.1 gives the same L and the opposite gradient.
  fire[1] = -1.1;
  Vec flipped(fire.size(), 0.0);
  fire_backward(flipped.data(), r.data(), fire.data(), pos, B, L, H, K, unit, eps);
  EXPECT_NEAR(flipped[1], -dfire[1], 1e-12);
}

// Attention with FIRE's (B, H, T, T) bias added to the scores: the bias gets the scores'
// gradient where j ≤ i.
TEST(TrainOps, AttentionScoreBiasBackward) {
  const std::size_t B = 2, L = 4, H = 2, d = 4, E = H * d;
  AttentionPlan plan;
  plan.batch = B;
  plan.length = L;
  plan.heads = H;
  plan.head_dim = d;
  Vec qkv = random_vec(B * L * 3 * E, 1), sb = random_vec(B * H * L * L, 2);
  const Vec r = random_vec(B * L * E, 3);
  Vec q(B * L * E), k(B * L * E), v(B * L * E), att(B * H * L * L);
  auto f = [&] {
    Vec out(B * L * E);
    attention_forward(out.data(), q.data(), k.data(), v.data(), att.data(), qkv.data(),
                      static_cast<const double*>(nullptr), plan, sb.data());
    return out;
  };
  f();
  Vec dqkv(qkv.size()), dq(q.size()), dk(k.size()), dv(v.size()), datt(L);
  Vec dsb(sb.size(), 0.0);
  attention_backward(dqkv.data(), static_cast<double*>(nullptr), dq.data(), dk.data(), dv.data(),
                     datt.data(), r.data(), q.data(), k.data(), v.data(), att.data(), plan,
                     dsb.data());
  // Above the diagonal the bias is hidden: its gradient is 0 (dsb keeps its zeros there).
  expect_matches_fd({&qkv, &sb}, f, {dqkv, dsb}, r);
}

TEST(TrainOps, MaskedCrossEntropyBackward) {
  const std::size_t n = 6, V = 5;
  Vec logits = random_vec(n * V, 1, 2.0);
  const std::int32_t targets[n] = {0, 4, 2, 2, 1, 3};
  const float mask[n] = {1, 0, 1, 1, 0, 1};
  auto loss_of = [&](Vec z) {
    return cross_entropy_forward_backward(z.data(), targets, mask, n, V);
  };
  Vec grad = logits;
  const double loss = cross_entropy_forward_backward(grad.data(), targets, mask, n, V);
  // By hand: the mean over the four scored rows of logsumexp − the target's logit.
  double expect = 0;
  for (std::size_t r = 0; r < n; ++r) {
    if (mask[r] == 0) continue;
    double s = 0;
    for (std::size_t c = 0; c < V; ++c) s += std::exp(logits[r * V + c]);
    expect += std::log(s) - logits[r * V + targets[r]];
  }
  EXPECT_NEAR(loss, expect / 4, 1e-12);
  for (std::size_t i = 0; i < logits.size(); ++i) {
    Vec up = logits, down = logits;
    up[i] += 1e-6;
    down[i] -= 1e-6;
    const double fd = (loss_of(up) - loss_of(down)) / 2e-6;
    ASSERT_NEAR(grad[i], fd, 1e-7 + 1e-6 * std::abs(fd)) << i;
  }
  // An empty mask: zero loss and zero gradients, never NaN.
  const float none[n] = {0, 0, 0, 0, 0, 0};
  Vec z = logits;
  EXPECT_EQ(cross_entropy_forward_backward(z.data(), targets, none, n, V), 0.0);
  for (double g : z) EXPECT_EQ(g, 0.0);
}

}  // namespace
}  // namespace poslab::train::ops
