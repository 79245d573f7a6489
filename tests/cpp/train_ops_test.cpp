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
#include "poslab/positions/score_bias.hpp"
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

// Attention's two per-query products in float (the vector kernels at d = 8, 16, 32, 64, the
// plain loop at 12) against the double loops, with strided rows, n from 1 to past a multiple
// of four, and `add`: within 1e-5 of Σ|terms|, float's rounding over a short sum.
TEST(TrainOps, AttentionProductsInFloatMatchDouble) {
  for (const std::size_t d : {8, 12, 16, 32, 64}) {
    const std::size_t stride = d + 3, rows = 11;
    const Vec a = random_vec(d, 1), x = random_vec(rows * stride, 2), w = random_vec(rows * 2, 3);
    const std::vector<float> af(a.begin(), a.end()), xf(x.begin(), x.end()), wf(w.begin(), w.end());
    for (std::size_t n = 1; n <= rows; ++n) {
      Vec want(n), abs_sum(n, 0.0);
      dots(want.data(), a.data(), x.data(), stride, n, d);
      std::vector<float> got(n);
      dots(got.data(), af.data(), xf.data(), stride, n, d);
      for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t c = 0; c < d; ++c) abs_sum[j] += std::abs(a[c] * x[j * stride + c]);
        ASSERT_NEAR(got[j], want[j], 1e-5 * abs_sum[j]) << "dots d = " << d << ", n = " << n;
      }
      for (const bool add : {false, true}) {
        Vec sum(d, 0.5);
        std::vector<float> sumf(d, 0.5f);
        weighted_rows(sum.data(), w.data(), 2, x.data(), stride, n, d, add);
        weighted_rows(sumf.data(), wf.data(), 2, xf.data(), stride, n, d, add);
        for (std::size_t c = 0; c < d; ++c) {
          double bound = add ? 0.5 : 0.0;
          for (std::size_t i = 0; i < n; ++i) bound += std::abs(w[i * 2] * x[i * stride + c]);
          ASSERT_NEAR(sumf[c], sum[c], 1e-5 * bound)
              << "weighted_rows d = " << d << ", n = " << n << ", add = " << add;
        }
      }
    }
  }
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

// The plan of attention over B sequences of L tokens, H heads of width d, positions nowhere.
AttentionPlan plain_plan(std::size_t B, std::size_t L, std::size_t H, std::size_t d) {
  AttentionPlan plan;
  plan.batch = B;
  plan.length = L;
  plan.heads = H;
  plan.head_dim = d;
  return plan;
}

// Attention of `plan` over qkv with `extras` (ops::AttentionExtras): forward() the output,
// backward() dqkv, the extras' gradients where `extras` points them. The extras' tests run it.
struct ExtrasAttention {
  AttentionPlan plan;
  Vec q, k, v, att;
  explicit ExtrasAttention(const AttentionPlan& p)
      : plan(p),
        q(p.batch * p.length * p.heads * p.head_dim),
        k(q.size()),
        v(q.size()),
        att(p.batch * p.heads * p.length * p.length) {}
  Vec forward(const Vec& qkv, const AttentionExtras<double>& extras) {
    Vec out(q.size());
    attention_forward(out.data(), q.data(), k.data(), v.data(), att.data(), qkv.data(), plan,
                      static_cast<const double*>(nullptr), extras);
    return out;
  }
  Vec backward(const Vec& dout, const AttentionExtras<double>& extras) {
    Vec dqkv(3 * q.size()), dq(q.size()), dk(q.size()), dv(q.size()), datt(plan.length);
    attention_backward(dqkv.data(), dq.data(), dk.data(), dv.data(), datt.data(), dout.data(),
                       q.data(), k.data(), v.data(), att.data(), plan,
                       static_cast<double*>(nullptr), extras);
    return dqkv;
  }
};

// Attention with each way positions enter it, over sorted random positions; head width 4 runs
// the generic loops, 16 the unrolled fixed-width ones (ops::with_head_dim).
class TrainOpsAttention : public ::testing::TestWithParam<std::tuple<int, std::size_t>> {};

TEST_P(TrainOpsAttention, Backward) {
  const std::size_t B = 2, L = 5, H = 2, d = std::get<1>(GetParam()), E = H * d;
  AttentionPlan plan = plain_plan(B, L, H, d);
  const std::int32_t pos[B * L] = {0, 3, 4, 9, 30, 1, 2, 6, 7, 8};
  const int kind = std::get<0>(GetParam());  // 0 none, 1 rope, 5 xpos (biases: ScoreBiasTerm)
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
  Vec qkv = random_vec(B * L * 3 * E, 1);
  const Vec r = random_vec(B * L * E, 3);
  Vec q(B * L * E), k(B * L * E), v(B * L * E), att(B * H * L * L);
  auto f = [&] {
    Vec out(B * L * E);
    attention_forward(out.data(), q.data(), k.data(), v.data(), att.data(), qkv.data(), plan);
    return out;
  };
  f();
  Vec dqkv(qkv.size()), dq(q.size()), dk(k.size()), dv(v.size()), datt(L);
  attention_backward(dqkv.data(), dq.data(), dk.data(), dv.data(), datt.data(), r.data(), q.data(),
                     k.data(), v.data(), att.data(), plan);
  expect_matches_fd({&qkv}, f, {dqkv}, r);
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
                         ::testing::Combine(::testing::Values(0, 1, 5),
                                            ::testing::Values(std::size_t{4}, std::size_t{16})));

// Every score-bias term (positions/score_bias.hpp) with parameters: add_gradients against
// finite differences of Σ r·values over every pair of two sequences' positions (in any order:
// coupled positions put keys after queries), for every parameter.
template <class Term>
void ExpectTermGradientsMatch(Vec parameters, const score_bias::TermShape& shape) {
  const std::vector<std::int32_t> pos = {0, 3, 4, 9, 30, 1, 2, 6, 7, 2};
  const std::size_t H = std::size_t(shape.heads), P = pos.size();
  const Vec r = random_vec(P * P * H, 9);
  auto f = [&] {
    Vec out(P * P * H);
    const Term term(parameters.data(), shape);
    for (std::size_t i = 0; i < P; ++i)
      for (std::size_t j = 0; j < P; ++j) term.values(pos[i], pos[j], out.data() + (i * P + j) * H);
    return out;
  };
  Vec grad(parameters.size(), 0.0);
  const Term term(parameters.data(), shape);
  for (std::size_t i = 0; i < P; ++i)
    for (std::size_t j = 0; j < P; ++j)
      term.add_gradients(pos[i], pos[j], r.data() + (i * P + j) * H, grad.data());
  expect_matches_fd({&parameters}, f, {grad}, r);
  // value(h) is values()'s entry h.
  Vec all(H);
  term.values(pos[3], pos[1], all.data());
  for (std::size_t h = 0; h < H; ++h) EXPECT_EQ(term.value(int(h), pos[3], pos[1]), all[h]);
}

TEST(TrainOps, ScoreBiasTermGradients) {
  score_bias::TermShape shape;
  shape.heads = 3;
  shape.options[0] = 8;  // T5: 8 buckets up to distance 16
  shape.options[1] = 16;
  ExpectTermGradientsMatch<score_bias::T5<double>>(random_vec(8 * 3, 1), shape);
  Vec kerple = random_vec(6, 2);
  for (double& x : kerple) x = 0.2 + std::abs(x);
  ExpectTermGradientsMatch<score_bias::Kerple<double>>(kerple, shape);
  const std::size_t K = score_bias::kFireHidden;
  Vec fire = random_vec(2 + 2 * K + K * 3, 3);
  fire[0] = -0.3;       // c: its absolute value is read
  fire[1] = 4.5 / 512;  // s: the threshold L = 4.5 lies between the positions
  ExpectTermGradientsMatch<score_bias::Fire<double>>(fire, shape);
  ExpectTermGradientsMatch<score_bias::Alibi<double>>({}, shape);
}

// The terms' values against their formulas written out.
TEST(TrainOps, ScoreBiasTermValues) {
  score_bias::TermShape shape;
  shape.heads = 2;
  const Vec r = {0.5, 2.0, 0.25, 3.0};  // r1 (2) then r2 (2)
  const score_bias::Kerple<double> kerple(r.data(), shape);
  EXPECT_DOUBLE_EQ(kerple.value(1, 9, 2), -2.0 * std::log(1 + 3.0 * 7));
  EXPECT_DOUBLE_EQ(kerple.value(0, 2, 9), -0.5 * std::log(1 + 0.25 * 7));
  EXPECT_EQ(kerple.value(0, 4, 4), 0.0);
  const score_bias::Alibi<double> alibi(nullptr, shape);
  EXPECT_DOUBLE_EQ(alibi.value(1, 10, 3), -formulas::alibi_slope(1, 2) * 7);
  const std::size_t K = score_bias::kFireHidden;
  Vec fire = random_vec(2 + 2 * K + K * 2, 4);
  fire[0] = 0.3;
  fire[1] = 1.1;
  const score_bias::Fire<double> term(fire.data(), shape);
  const double pi = 9, pj = 2, norm = std::max(1.1 * 512, pi + 1);
  const double u = std::log(0.3 * (pi - pj) + 1) / (std::log(0.3 * norm + 1) + 1e-6);
  double want = 0;
  for (std::size_t k = 0; k < K; ++k) {
    want += std::max(0.0, fire[2 + k] * u + fire[2 + K + k]) * fire[2 + 2 * K + k * 2 + 1];
  }
  EXPECT_NEAR(term.value(1, 9, 2), want, 1e-12);
}

// Attention with a score bias (B, H, T, T) added to the scores: the bias gets the scores'
// gradient where j ≤ i.
TEST(TrainOps, AttentionScoreBiasBackward) {
  const std::size_t B = 2, L = 4, H = 2, d = 4, E = H * d;
  AttentionPlan plan = plain_plan(B, L, H, d);
  Vec qkv = random_vec(B * L * 3 * E, 1), sb = random_vec(B * H * L * L, 2);
  const Vec r = random_vec(B * L * E, 3);
  Vec q(B * L * E), k(B * L * E), v(B * L * E), att(B * H * L * L);
  auto f = [&] {
    Vec out(B * L * E);
    attention_forward(out.data(), q.data(), k.data(), v.data(), att.data(), qkv.data(), plan,
                      sb.data());
    return out;
  };
  f();
  Vec dqkv(qkv.size()), dq(q.size()), dk(k.size()), dv(v.size()), datt(L);
  Vec dsb(sb.size(), 0.0);
  attention_backward(dqkv.data(), dq.data(), dk.data(), dv.data(), datt.data(), r.data(), q.data(),
                     k.data(), v.data(), att.data(), plan, dsb.data());
  // Above the diagonal the bias is hidden: its gradient is 0 (dsb keeps its zeros there).
  expect_matches_fd({&qkv, &sb}, f, {dqkv, dsb}, r);
}

// Attention sinks (gpt-oss): exp(σ_h) in each row's denominator. The weights then sum to less
// than one, by the sink's weight; the sinks get their gradient, the scores' is unchanged in form.
// Head width 4 runs the generic loops, 16 the fixed-width ones.
TEST(TrainOps, AttentionSinksBackward) {
  for (const std::size_t d : {std::size_t{4}, std::size_t{16}}) {
    const std::size_t B = 2, L = 5, H = 3, E = H * d;
    AttentionPlan plan = plain_plan(B, L, H, d);
    Vec qkv = random_vec(B * L * 3 * E, 1), sinks = {0.3, -1.2, 2.5}, weights(B * H * L);
    const Vec r = random_vec(B * L * E, 3);
    ExtrasAttention a(plan);
    AttentionExtras<double> x;
    x.sinks = sinks.data();
    x.sink_weights = weights.data();
    auto f = [&] { return a.forward(qkv, x); };
    f();
    for (std::size_t row = 0; row < B * H * L; ++row) {
      double sum = 0;
      for (std::size_t j = 0; j < L; ++j) sum += a.att[row * L + j];
      EXPECT_NEAR(sum + weights[row], 1.0, 1e-12);
      EXPECT_GT(weights[row], 0.0);
    }
    Vec dsinks(H, 0.0);
    x.dsinks = dsinks.data();
    const Vec dqkv = a.backward(r, x);
    x.dsinks = nullptr;
    expect_matches_fd({&qkv, &sinks}, f, {dqkv, dsinks}, r);
  }
}

// Llama 4's attention temperature: each query row scaled by its own factor before the scores
// (as if its q columns of qkv were), and the gradient through it.
TEST(TrainOps, AttentionTemperatureBackward) {
  const std::size_t B = 2, L = 5, H = 2, d = 4, E = H * d;
  AttentionPlan plan = plain_plan(B, L, H, d);
  plan.tempered = true;
  for (std::size_t r = 0; r < B * L; ++r) plan.query_scale.push_back(1 + 0.3 * double(r % 4));
  Vec qkv = random_vec(B * L * 3 * E, 1);
  const Vec r = random_vec(B * L * E, 3);
  Vec q(B * L * E), k(B * L * E), v(B * L * E), att(B * H * L * L);
  auto f = [&] {
    Vec out(B * L * E);
    attention_forward(out.data(), q.data(), k.data(), v.data(), att.data(), qkv.data(), plan);
    return out;
  };
  const Vec tempered = f();
  AttentionPlan plain = plan;
  plain.tempered = false;
  Vec scaled = qkv;
  for (std::size_t row = 0; row < B * L; ++row) {
    for (std::size_t c = 0; c < E; ++c) scaled[row * 3 * E + c] *= plan.query_scale[row];
  }
  Vec out(B * L * E), att2(att.size());
  attention_forward(out.data(), q.data(), k.data(), v.data(), att2.data(), scaled.data(), plain);
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], tempered[i], 1e-12);
  f();
  Vec dqkv(qkv.size()), dq(q.size()), dk(k.size()), dv(v.size()), datt(L);
  attention_backward(dqkv.data(), dq.data(), dk.data(), dv.data(), datt.data(), r.data(), q.data(),
                     k.data(), v.data(), att.data(), plan);
  expect_matches_fd({&qkv}, f, {dqkv}, r);
}

// CoPE (Golovneva et al. 2024) inside attention: gates σ of the scaled scores, positions
// counted from the query back to each key and clipped at P − 1, the embedding E (d, P)
// interpolated there and added to the scores. Against finite differences in qkv and E, with P
// = 64 (nothing clipped) and P = 3 (most positions clipped); head widths 4 and 16.
TEST(TrainOps, AttentionCopeBackward) {
  for (const std::size_t P : {std::size_t{64}, std::size_t{3}}) {
    for (const std::size_t d : {std::size_t{4}, std::size_t{16}}) {
      const std::size_t B = 2, L = 6, H = 2, E = H * d;
      const AttentionPlan plan = plain_plan(B, L, H, d);
      Vec qkv = random_vec(B * L * 3 * E, 1), emb = random_vec(d * P, 2, 0.5);
      const Vec r = random_vec(B * L * E, 3);
      ExtrasAttention a(plan);
      AttentionExtras<double> x;
      x.cope = emb.data();
      x.cope_npos_max = P;
      auto f = [&] { return a.forward(qkv, x); };
      f();
      Vec demb(d * P, 0.0);
      x.dcope = demb.data();
      const Vec dqkv = a.backward(r, x);
      x.dcope = nullptr;
      expect_matches_fd({&qkv, &emb}, f, {dqkv, demb}, r);
    }
  }
}

// CoPE's term for one query against its definition: positions summed from the key to the
// query, the embedding's logits interpolated between the integers around them.
TEST(TrainOps, CopeTermFollowsTheAuthorsCode) {
  const std::size_t P = 4, d = 2;
  const Vec emb = {0.5, -1.0, 2.0, 0.25, 1.5, 0.0, -0.5, 3.0};  // E (d, P)
  const Vec q = {2.0, -1.0};
  std::vector<double> z(P);
  cope_logits(z.data(), q.data(), emb.data(), d, P);
  EXPECT_EQ(z, (std::vector<double>{-0.5, -2.0, 4.5, -2.5}));  // q·E[:, m]
  Vec row = {3.0, -2.0, 0.0, 1.0};
  const Vec scores = row;
  cope_forward(row.data(), row.size(), z.data(), P);
  const auto sigmoid = [](double x) { return 1 / (1 + std::exp(-x)); };
  double p = 0;
  for (std::size_t j = 4; j-- > 0;) {
    p += sigmoid(scores[j]);
    const double clipped = std::min(p, double(P - 1));
    const double lo = std::floor(clipped), w = clipped - lo;
    const double want =
        scores[j] + z[std::size_t(std::ceil(clipped))] * w + z[std::size_t(lo)] * (1 - w);
    EXPECT_NEAR(row[j], want, 1e-15) << j;
  }
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
