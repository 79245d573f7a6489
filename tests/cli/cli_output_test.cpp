// The poslab binary end to end: every subcommand's output read back (.npy, .csv, .json)
// and checked for shape, dtype and values worked out by hand.
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fixtures.hpp"
#include "poslab/io/npy.hpp"

namespace poslab::test {
namespace {

constexpr double kPi = 3.14159265358979323846;

// x[i, j] of a 2-D tensor, x[h, i, j] of a 3-D one.
float at(const TensorF& x, std::size_t i, std::size_t j) { return x.data.at(i * x.dim(1) + j); }
float at(const TensorF& x, std::size_t h, std::size_t i, std::size_t j) {
  return x.data.at((h * x.dim(1) + i) * x.dim(2) + j);
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    std::string cell;
    while (std::getline(fields, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST_F(Cli, SinusoidalHasKnownValues) {
  const TensorF pe = run_npy({"sinusoidal", "--len", "4", "--dim", "8", "-o", "pe.npy"}, "pe.npy");
  ASSERT_EQ(pe.shape, (Shape{4, 8}));
  EXPECT_FLOAT_EQ(at(pe, 0, 0), 0.0f);
  EXPECT_FLOAT_EQ(at(pe, 0, 1), 1.0f);
  EXPECT_FLOAT_EQ(at(pe, 1, 0), std::sin(1.0f));
  EXPECT_FLOAT_EQ(at(pe, 1, 1), std::cos(1.0f));
  EXPECT_FLOAT_EQ(at(pe, 2, 2), std::sin(2.0f * 0.1f));  // w_1 = 10000^(-2/8) = 0.1
}

TEST_F(Cli, SinusoidalConcatPutsCosinesInTheSecondHalf) {
  const TensorF pe = run_npy(
      {"sinusoidal", "--len", "2", "--dim", "8", "--layout", "concat", "-o", "pe.npy"}, "pe.npy");
  EXPECT_FLOAT_EQ(at(pe, 1, 0), std::sin(1.0f));
  EXPECT_FLOAT_EQ(at(pe, 1, 4), std::cos(1.0f));
}

TEST_F(Cli, SinusoidalBaseAndOffsetAreUsed) {
  const TensorF pe = run_npy(
      {"sinusoidal", "--len", "1", "--dim", "4", "--base", "100", "--offset", "3", "-o", "pe.npy"},
      "pe.npy");
  EXPECT_FLOAT_EQ(at(pe, 0, 2), std::sin(3.0f * 0.1f));  // w_1 = 100^(-2/4)
}

TEST_F(Cli, CsvHasOneRowPerPositionAndRoundTripsFloat32) {
  const TensorF pe = run_npy({"sinusoidal", "--len", "5", "--dim", "6", "-o", "pe.npy"}, "pe.npy");
  ASSERT_EQ(run({"sinusoidal", "--len", "5", "--dim", "6", "-o", "pe.csv"}).status, 0);
  const auto rows = parse_csv(read_file(path("pe.csv")));
  ASSERT_EQ(rows.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    ASSERT_EQ(rows[i].size(), 6u);
    for (std::size_t j = 0; j < 6; ++j) EXPECT_EQ(std::stof(rows[i][j]), at(pe, i, j));
  }
}

TEST_F(Cli, CsvOfAOneDimensionalArrayIsOneRow) {
  ASSERT_EQ(run({"alibi-slopes", "--heads", "4", "-o", "s.csv"}).status, 0);
  const auto rows = parse_csv(read_file(path("s.csv")));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"0.25", "0.0625", "0.015625", "0.00390625"}));
}

TEST_F(Cli, CsvOfAThreeDimensionalArrayFlattensLeadingAxes) {
  ASSERT_EQ(run({"alibi", "--heads", "2", "--len", "3", "-o", "a.csv"}).status, 0);
  const auto rows = parse_csv(read_file(path("a.csv")));
  ASSERT_EQ(rows.size(), 6u);     // H·L rows of L
  ASSERT_EQ(rows[3].size(), 3u);  // head 1 (slope 2^-8), query 0
  EXPECT_EQ(rows[3][1], "-0.00390625");
  EXPECT_EQ(rows[3][2], "-0.0078125");
}

TEST_F(Cli, JsonHasShapeDtypeAndNestedData) {
  ASSERT_EQ(run({"sinusoidal", "--len", "3", "--dim", "4", "-o", "pe.json"}).status, 0);
  const auto j = nlohmann::json::parse(read_file(path("pe.json")));
  EXPECT_EQ(j["shape"], nlohmann::json::array({3, 4}));
  EXPECT_EQ(j["dtype"], "float32");
  ASSERT_EQ(j["data"].size(), 3u);
  ASSERT_EQ(j["data"][1].size(), 4u);
  EXPECT_FLOAT_EQ(j["data"][1][0].get<float>(), std::sin(1.0f));
}

TEST_F(Cli, JsonOfT5BucketsIsInt32) {
  ASSERT_EQ(run({"t5-buckets", "--qlen", "2", "--klen", "3", "-o", "b.json"}).status, 0);
  const auto j = nlohmann::json::parse(read_file(path("b.json")));
  EXPECT_EQ(j["dtype"], "int32");
  EXPECT_EQ(j["shape"], nlohmann::json::array({2, 3}));
  EXPECT_TRUE(j["data"][1][0].is_number_integer());
  EXPECT_EQ(j["data"][1][0], 1);
}

TEST_F(Cli, UppercaseExtensionPicksTheFormatToo) {
  ASSERT_EQ(run({"alibi-slopes", "--heads", "2", "-o", "s.NPY"}).status, 0);
  EXPECT_EQ(parse_npy(read_file(path("s.NPY")), "s.NPY").shape, Shape{2});
}

TEST_F(Cli, LearnedIsReproducibleForASeed) {
  ASSERT_EQ(run({"learned", "--len", "5", "--dim", "4", "--seed", "7", "-o", "a.npy"}).status, 0);
  ASSERT_EQ(run({"learned", "--len", "5", "--dim", "4", "--seed", "7", "-o", "b.npy"}).status, 0);
  ASSERT_EQ(run({"learned", "--len", "5", "--dim", "4", "--seed", "8", "-o", "c.npy"}).status, 0);
  EXPECT_EQ(read_file(path("a.npy")), read_file(path("b.npy")));
  EXPECT_NE(read_file(path("a.npy")), read_file(path("c.npy")));
  const TensorF t = parse_npy(read_file(path("a.npy")), "a.npy");
  EXPECT_EQ(t.shape, (Shape{5, 4}));
  for (float v : t.data) EXPECT_LT(std::fabs(v), 0.2f);  // std 0.02: 10 sigma
}

TEST_F(Cli, ShawEmbeddingsDependOnlyOnClippedDistance) {
  const TensorF a = run_npy(
      {"shaw", "--qlen", "4", "--klen", "7", "--max-distance", "2", "--dim", "3", "-o", "a.npy"},
      "a.npy");
  ASSERT_EQ(a.shape, (Shape{4, 7, 3}));
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(at(a, 0, 1, c), at(a, 2, 3, c));  // both j − i = 1
    EXPECT_EQ(at(a, 0, 5, c), at(a, 0, 6, c));  // 5 and 6 both clip to 2
    EXPECT_EQ(at(a, 3, 0, c), at(a, 2, 0, c));  // −3 and −2 both clip to −2
  }
  EXPECT_NE(at(a, 0, 0, 0), at(a, 0, 1, 0));
}

TEST_F(Cli, AlibiBiasHasKnownValues) {
  const TensorF b = run_npy({"alibi", "--heads", "8", "--len", "4", "-o", "b.npy"}, "b.npy");
  ASSERT_EQ(b.shape, (Shape{8, 4, 4}));
  EXPECT_FLOAT_EQ(at(b, 0, 0, 1), -0.5f);
  EXPECT_FLOAT_EQ(at(b, 0, 1, 0), -0.5f);
  EXPECT_FLOAT_EQ(at(b, 7, 3, 0), -3.0f / 256.0f);
  EXPECT_FLOAT_EQ(at(b, 3, 2, 2), 0.0f);
}

TEST_F(Cli, AlibiSlopesForEightHeadsAreHalfToOne256th) {
  const TensorF s = run_npy({"alibi-slopes", "--heads", "8", "-o", "s.npy"}, "s.npy");
  ASSERT_EQ(s.shape, Shape{8});
  for (std::size_t h = 0; h < 8; ++h) EXPECT_FLOAT_EQ(s.data[h], std::ldexp(1.0f, -int(h) - 1));
}

TEST_F(Cli, T5BucketsAreInt32WithKnownValues) {
  ASSERT_EQ(run({"t5-buckets", "--qlen", "4", "--klen", "4", "-o", "b.npy"}).status, 0);
  const std::string bytes = read_file(path("b.npy"));
  EXPECT_NE(bytes.find("'descr': '<i4'"), std::string::npos);
  const TensorF b = parse_npy(bytes, "b.npy");
  ASSERT_EQ(b.shape, (Shape{4, 4}));
  // Unidirectional: bucket = i − j for keys in the past, 0 for the future.
  EXPECT_EQ(at(b, 3, 0), 3.0f);
  EXPECT_EQ(at(b, 0, 3), 0.0f);
  EXPECT_EQ(at(b, 2, 1), 1.0f);

  ASSERT_EQ(
      run({"t5-buckets", "--qlen", "4", "--klen", "4", "--bidirectional", "-o", "c.npy"}).status,
      0);
  const TensorF c = parse_npy(read_file(path("c.npy")), "c.npy");
  EXPECT_EQ(at(c, 3, 0), 3.0f);
  EXPECT_EQ(at(c, 0, 3), 16.0f + 3.0f);  // future keys use the upper half of 32 buckets
}

TEST_F(Cli, T5BucketsAreLogarithmicPastHalfTheBuckets) {
  const TensorF b = run_npy({"t5-buckets", "--qlen", "200", "--klen", "1", "--buckets", "8",
                             "--max-distance", "16", "-o", "b.npy"},
                            "b.npy");
  // max_exact 4: distances 0..3 exact, then 4 + floor(log(n/4)/log(4)·4), capped at 7.
  EXPECT_EQ(b.data[3], 3.0f);
  EXPECT_EQ(b.data[4], 4.0f);
  EXPECT_EQ(b.data[8], 6.0f);
  EXPECT_EQ(b.data[199], 7.0f);
}

TEST_F(Cli, RopeRotatesPairsAndPreservesNorms) {
  put("x.npy", npy_f4(2, 4, {1, 1, 1, 1, 1, 1, 1, 1}));
  const TensorF y = run_npy({"rope", "--in", "x.npy", "-o", "y.npy"}, "y.npy");
  ASSERT_EQ(y.shape, (Shape{2, 4}));
  for (std::size_t j = 0; j < 4; ++j) EXPECT_FLOAT_EQ(at(y, 0, j), 1.0f);  // position 0
  // neox pairs (x0, x2) at θ0 = 1 and (x1, x3) at θ1 = 10000^(-2/4) = 0.01.
  EXPECT_FLOAT_EQ(at(y, 1, 0), std::cos(1.0f) - std::sin(1.0f));
  EXPECT_FLOAT_EQ(at(y, 1, 2), std::sin(1.0f) + std::cos(1.0f));
  EXPECT_FLOAT_EQ(at(y, 1, 1), std::cos(0.01f) - std::sin(0.01f));
  float norm = 0;
  for (std::size_t j = 0; j < 4; ++j) norm += at(y, 1, j) * at(y, 1, j);
  EXPECT_NEAR(norm, 4.0f, 1e-5f);
}

// xPos on ones, L = 2, D = 4: positions centred at −1, 0 (total 2); ζ = (0.4·4, 2 + 0.4·4)/(1.4·4).
TEST_F(Cli, XposRotatesGptjPairsAndScalesQueriesAndKeysApart) {
  put("x.npy", npy_f4(2, 4, {1, 1, 1, 1, 1, 1, 1, 1}));
  const TensorF q = run_npy(
      {"rope", "--method", "xpos", "--in", "x.npy", "--scale-base", "2", "-o", "q.npy"}, "q.npy");
  const TensorF k = run_npy(
      {"rope", "--method", "xpos", "--in", "x.npy", "--scale-base", "2", "--key", "-o", "k.npy"},
      "k.npy");
  const double z0 = 1.6 / 5.6, z1 = 3.6 / 5.6;
  // Position 0 (exponent −1/2): no rotation, pair 0 times ζ0^(−1/2), pair 1 times ζ1^(−1/2).
  EXPECT_FLOAT_EQ(at(q, 0, 0), float(std::pow(z0, -0.5)));
  EXPECT_FLOAT_EQ(at(q, 0, 3), float(std::pow(z1, -0.5)));
  EXPECT_FLOAT_EQ(at(k, 0, 0), float(std::pow(z0, 0.5)));
  // Position 1 (exponent 0): plain gptj RoPE, θ0 = 1, θ1 = 10000^(-2/4) = 0.01.
  EXPECT_FLOAT_EQ(at(q, 1, 0), std::cos(1.0f) - std::sin(1.0f));
  EXPECT_FLOAT_EQ(at(q, 1, 1), std::sin(1.0f) + std::cos(1.0f));
  EXPECT_FLOAT_EQ(at(k, 1, 2), std::cos(0.01f) - std::sin(0.01f));
}

TEST_F(Cli, RopeGptjStyleRotatesAdjacentPairs) {
  put("x.npy", npy_f4(2, 4, {1, 1, 1, 1, 1, 1, 1, 1}));
  const TensorF y = run_npy({"rope", "--in", "x.npy", "--style", "gptj", "-o", "y.npy"}, "y.npy");
  EXPECT_FLOAT_EQ(at(y, 1, 0), std::cos(1.0f) - std::sin(1.0f));
  EXPECT_FLOAT_EQ(at(y, 1, 1), std::sin(1.0f) + std::cos(1.0f));
}

TEST_F(Cli, RopeAcceptsHeadsAndFloat64Input) {
  put("x.npy", npy_file(npy_dict("<f8", "(2, 3, 4)"), raw(std::vector<double>(24, 0.5))));
  const TensorF y = run_npy({"rope", "--in", "x.npy", "--offset", "5", "--scaling", "linear",
                             "--factor", "2", "-o", "y.npy"},
                            "y.npy");
  ASSERT_EQ(y.shape, (Shape{2, 3, 4}));
  // Position 5 with θ0 = 1/2.
  EXPECT_FLOAT_EQ(at(y, 1, 0, 0), 0.5f * (std::cos(2.5f) - std::sin(2.5f)));
}

TEST_F(Cli, RopeFreqsWritesInvFreqAndPrintsTheAttentionFactor) {
  RunResult r = run({"rope-freqs", "--dim", "8", "-o", "f.npy"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "attention_factor 1\n");
  const TensorF f = parse_npy(read_file(path("f.npy")), "f.npy");
  ASSERT_EQ(f.shape, Shape{4});
  EXPECT_FLOAT_EQ(f.data[0], 1.0f);
  EXPECT_FLOAT_EQ(f.data[1], 0.1f);
  EXPECT_FLOAT_EQ(f.data[3], 0.001f);

  r = run({"rope-freqs", "--dim", "8", "--scaling", "yarn", "--factor", "4", "--original-len", "64",
           "-o", "y.npy"});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(r.out.rfind("attention_factor ", 0), 0u);
  EXPECT_NEAR(std::stod(r.out.substr(17)), 0.1 * std::log(4.0) + 1.0, 1e-12);
}

TEST_F(Cli, RopeDecayIsLargestAtDistanceZero) {
  const TensorF d =
      run_npy({"rope-decay", "--dim", "16", "--max-distance", "50", "-o", "d.npy"}, "d.npy");
  ASSERT_EQ(d.shape, Shape{51});
  for (float v : d.data) EXPECT_LE(v, d.data[0] + 1e-5f);
  EXPECT_LT(d.data[50], d.data[0]);
}

TEST_F(Cli, WavelengthsAreTwoPiOverTheFrequencies) {
  const TensorF w = run_npy({"wavelengths", "--dim", "8", "-o", "w.npy"}, "w.npy");
  ASSERT_EQ(w.shape, Shape{4});
  EXPECT_FLOAT_EQ(w.data[0], float(2 * kPi));
  EXPECT_FLOAT_EQ(w.data[2], float(2 * kPi * 100));
}

TEST_F(Cli, OffsetMatrixMapsPEpToPEpPlusK) {
  const TensorF pe = run_npy({"sinusoidal", "--len", "20", "--dim", "8", "-o", "pe.npy"}, "pe.npy");
  const TensorF m = run_npy({"offset-matrix", "--dim", "8", "--k", "-3", "-o", "m.npy"}, "m.npy");
  ASSERT_EQ(m.shape, (Shape{8, 8}));
  const std::size_t p = 10;
  for (std::size_t r = 0; r < 8; ++r) {
    double sum = 0;
    for (std::size_t c = 0; c < 8; ++c) sum += double(at(m, r, c)) * at(pe, p, c);
    EXPECT_NEAR(sum, at(pe, p - 3, r), 1e-5);
  }
}

TEST_F(Cli, SimilarityOfSinusoidalRows) {
  ASSERT_EQ(run({"sinusoidal", "--len", "6", "--dim", "8", "-o", "pe.npy"}).status, 0);
  const TensorF cos = run_npy({"similarity", "--in", "pe.npy", "-o", "s.npy"}, "s.npy");
  ASSERT_EQ(cos.shape, (Shape{6, 6}));
  for (std::size_t i = 0; i < 6; ++i) EXPECT_NEAR(at(cos, i, i), 1.0f, 1e-6f);
  const TensorF dot =
      run_npy({"similarity", "--in", "pe.npy", "--metric", "dot", "-o", "d.npy"}, "d.npy");
  EXPECT_NEAR(at(dot, 2, 2), 4.0f, 1e-5f);  // D/2 pairs of sin² + cos²
  EXPECT_NEAR(at(dot, 1, 4), at(dot, 4, 1), 1e-6f);
}

// At the element cap, (16384, 2) → (16384, 16384): S is filled a block of rows at a time in
// double and the file's bytes are never copied, so the run fits in 3 GiB of address space (it
// peaked at 3.1 GB of memory, and failed under a 4 GiB cap, with S whole in double and the
// bytes copied twice). LongRunning: a 1 GiB file, and RLIMIT_AS means nothing under ASan.
TEST_F(Cli, LongRunningSimilarityAtTheElementCapFitsInThreeGiB) {
  std::vector<float> x(16384 * 2);
  for (std::size_t n = 0; n < x.size(); ++n) x[n] = float(n % 7) - 3.0f;
  put("big.npy", npy_f4(16384, 2, x));
  const RunResult r = run({"similarity", "--in", "big.npy", "--metric", "dot", "-o", "s.npy"},
                          120.0, 9, {}, std::size_t(3) << 30);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(std::filesystem::file_size(path("s.npy")), 128u + 4u * 16384u * 16384u);
  std::filesystem::remove(path("s.npy"));
}

TEST_F(Cli, LayerNormAndRmsNormHaveKnownValues) {
  put("x.npy", npy_f4(1, 4, {1, 2, 3, 4}));
  put("g.npy", npy_file(npy_dict("<f4", "(4,)"), raw<float>({1, 1, 2, 2})));
  put("b.npy", npy_file(npy_dict("<f4", "(4,)"), raw<float>({0, 0, 0, 1})));
  const TensorF ln = run_npy({"norm", "--kind", "layernorm", "--in", "x.npy", "--eps", "0",
                              "--gamma", "g.npy", "--beta", "b.npy", "-o", "ln.npy"},
                             "ln.npy");
  const float s = 1.0f / std::sqrt(1.25f);  // mean 2.5, biased variance 1.25
  EXPECT_FLOAT_EQ(ln.data[0], -1.5f * s);
  EXPECT_FLOAT_EQ(ln.data[3], 2 * 1.5f * s + 1);
  const TensorF rms =
      run_npy({"norm", "--kind", "rmsnorm", "--in", "x.npy", "--eps", "0", "-o", "r.npy"}, "r.npy");
  EXPECT_FLOAT_EQ(rms.data[3], 4.0f / std::sqrt(7.5f));  // mean of squares 30/4
}

TEST_F(Cli, AttentionCausalWeightsAreLowerTriangularAndSumToOne) {
  put("q.npy", npy_f4(3, 2, {1, 0, 0, 1, 1, 1}));
  put("k.npy", npy_f4(3, 2, {1, 0, 0, 1, 1, 1}));
  put("v.npy", npy_f4(3, 2, {1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(run({"attention", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--mask", "causal",
                 "--weights", "w.npy", "-o", "o.npy"})
                .status,
            0);
  const TensorF w = parse_npy(read_file(path("w.npy")), "w.npy");
  const TensorF o = parse_npy(read_file(path("o.npy")), "o.npy");
  ASSERT_EQ(w.shape, (Shape{3, 3}));
  ASSERT_EQ(o.shape, (Shape{3, 2}));
  for (std::size_t i = 0; i < 3; ++i) {
    float sum = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      sum += at(w, i, j);
      if (j > i) {
        EXPECT_EQ(at(w, i, j), 0.0f);
      }
    }
    EXPECT_NEAR(sum, 1.0f, 1e-6f);
  }
  EXPECT_FLOAT_EQ(at(o, 0, 0), 1.0f);  // query 0 sees only key 0
  EXPECT_FLOAT_EQ(at(o, 0, 1), 2.0f);
}

TEST_F(Cli, AttentionKeyPaddingBiasAndScaleApply) {
  // Two queries, three keys (Lq != Lk); scale 0 makes the scores equal.
  put("q.npy", npy_f4(2, 2, {1, 0, 0, 1}));
  put("k.npy", npy_f4(3, 2, {1, 0, 0, 1, 1, 1}));
  put("v.npy", npy_f4(3, 1, {1, 2, 4}));
  put("pad.npy", npy_file(npy_dict("|b1", "(3,)"), raw<std::uint8_t>({0, 1, 0})));
  put("bias.npy", npy_f4(2, 3, {0, 0, std::log(3.0f), 0, 0, 0}));
  ASSERT_EQ(
      run({"attention", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--scale", "0",
           "--key-padding", "pad.npy", "--bias", "bias.npy", "--weights", "w.json", "-o", "o.npy"})
          .status,
      0);
  const TensorF o = parse_npy(read_file(path("o.npy")), "o.npy");
  ASSERT_EQ(o.shape, (Shape{2, 1}));
  EXPECT_NEAR(at(o, 0, 0), (1 + 3 * 4) / 4.0f, 1e-5f);  // key 1 hidden, key 2 weighted 3:1
  EXPECT_NEAR(at(o, 1, 0), (1 + 4) / 2.0f, 1e-5f);
  const auto w = nlohmann::json::parse(read_file(path("w.json")));
  EXPECT_EQ(w["shape"], nlohmann::json::array({2, 3}));
  EXPECT_EQ(w["data"][0][1], 0);
}

TEST_F(Cli, AttentionOffsetPlacesQueriesAfterTheKeys) {
  // Two queries after two earlier keys (--offset 2): query 0 sits at position 2 and sees keys
  // 0..2, query 1 at 3 sees all four; with --offset -1 query 0 sees nothing (zero output) and
  // query 1 only key 0. Scale 0: equal scores, so each output is the mean of the seen values.
  put("q.npy", npy_f4(2, 1, {1, 1}));
  put("k.npy", npy_f4(4, 1, {1, 1, 1, 1}));
  put("v.npy", npy_f4(4, 1, {1, 2, 4, 8}));
  const auto out = [&](const char* offset) {
    return run_npy({"attention", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--mask", "causal",
                    "--scale", "0", "--offset", offset, "-o", "o.npy"},
                   "o.npy");
  };
  const TensorF after = out("2");
  EXPECT_NEAR(after.data[0], (1 + 2 + 4) / 3.0f, 1e-6f);
  EXPECT_NEAR(after.data[1], (1 + 2 + 4 + 8) / 4.0f, 1e-6f);
  const TensorF before = out("-1");
  EXPECT_EQ(before.data[0], 0.0f);
  EXPECT_NEAR(before.data[1], 1.0f, 1e-6f);
  EXPECT_NE(run({"attention", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--offset",
                 "2000000000", "-o", "o.npy"})
                .status,
            0);
}

TEST_F(Cli, AttentionWithHeads) {
  const std::string ones = npy_file(npy_dict("<f4", "(2, 3, 4)"), raw(std::vector<float>(24, 1)));
  put("q.npy", ones);
  put("k.npy", ones);
  put("v.npy", ones);
  const TensorF o = run_npy({"attention", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--mask",
                             "window:2", "-o", "o.npy"},
                            "o.npy");
  EXPECT_EQ(o.shape, (Shape{2, 3, 4}));
  for (float v : o.data) EXPECT_FLOAT_EQ(v, 1.0f);
}

// The RoPE inspector: the report's JSON, one line per base on stdout, and its refusals.
TEST_F(Cli, RopeConfigWritesTheReport) {
  put("c.json", R"({"model_type": "mistral", "hidden_size": 64, "num_attention_heads": 8,
    "num_hidden_layers": 2, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
    "sliding_window": 4096, "vocab_size": 32000})");
  const RunResult r = run({"rope-config", "--config", "c.json", "-o", "r.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("rope: base 1000000, none x 1, R 8, N 32768"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_file(path("r.json")));
  EXPECT_EQ(j["kv_heads"], 8);  // MistralConfig's default, as the runtime's
  EXPECT_EQ(j["schemes"][0]["inv_freq"].size(), 4u);
  EXPECT_EQ(j["schemes"][0]["wavelength"][0], 2 * M_PI);
  EXPECT_EQ(j["layers"][1]["window"], 4096);
  EXPECT_EQ(j["ignored_keys"], nlohmann::json::array({"vocab_size"}));
  expect_refused_saying({"rope-config", "--config", "c.json", "-o", "r.npy"}, "must end in .json");
  put("bad.json", R"({"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
    "max_position_embeddings": 64, "rope_scaling": {"rope_type": "magic"}})");
  expect_refused_saying({"rope-config", "--config", "bad.json", "-o", "r2.json"}, "\"magic\"");
  expect_refused_saying({"rope-config", "--config", "missing.json", "-o", "r2.json"},
                        "missing.json");
}

// The newest configs' extras on stdout, and the M-RoPE sample flag with its refusals.
TEST_F(Cli, RopeConfigSaysMlaTemperatureAndMrope) {
  put("mla.json", R"({"model_type": "deepseek_v3", "hidden_size": 64, "num_attention_heads": 4,
    "num_hidden_layers": 1, "qk_rope_head_dim": 8, "qk_nope_head_dim": 16})");
  RunResult r = run({"rope-config", "--config", "mla.json", "-o", "mla-r.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("R 8,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mla: qk 24 = 16 + 8 rotated, v 128, softmax_scale"), std::string::npos)
      << r.out;
  put("l4.json", R"({"model_type": "llama4_text", "hidden_size": 64, "num_attention_heads": 4,
    "num_hidden_layers": 4, "max_position_embeddings": 65536})");
  r = run({"rope-config", "--config", "l4.json", "-o", "l4-r.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("nope temperature: 1 + 0.1 ln(1 + floor((p + 1) / 8192))"),
            std::string::npos)
      << r.out;
  put("vl.json", R"({"model_type": "qwen2_vl", "hidden_size": 64, "num_attention_heads": 4,
    "num_hidden_layers": 1, "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3]}})");
  r = run({"rope-config", "--config", "vl.json", "-o", "vl-r.json", "--mrope-sample", "1,2,4,1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("mrope axes: tthhhwww"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_file(path("vl-r.json")));
  EXPECT_EQ(j["mrope"]["sample"]["tokens"], "TIIT");
  EXPECT_EQ(j["mrope"]["sample"]["w"], nlohmann::json::array({0, 1, 2, 3}));
  expect_refused_saying(
      {"rope-config", "--config", "vl.json", "-o", "vl-r.json", "--mrope-sample", "1,1,4,1"},
      "--mrope-sample: the sample image of 1 x 4 patches is under one 2 x 2 merged token");
  expect_refused_saying(
      {"rope-config", "--config", "vl.json", "-o", "vl-r.json", "--mrope-sample", "1,2,4,-1"},
      "--mrope-sample: the sample's text");
}

TEST_F(Cli, HelpWorksForEveryCommand) {
  for (const char* command :
       {"sinusoidal", "learned", "shaw", "t5-buckets", "alibi", "alibi-slopes", "rope",
        "rope-freqs", "rope-decay", "attention", "norm", "similarity", "offset-matrix",
        "wavelengths", "gpt2", "rope-config", "lens", "methods"}) {
    const RunResult r = run({command, "--help"});
    EXPECT_EQ(r.status, 0) << command;
    EXPECT_NE(r.out.find(std::string("poslab ") + command), std::string::npos) << r.out;
    EXPECT_EQ(r.err, "") << command;
  }
  const RunResult top = run({"--help"});
  EXPECT_EQ(top.status, 0);
  EXPECT_NE(top.out.find("offset-matrix"), std::string::npos);
  EXPECT_EQ(listing(), std::set<std::string>{"x.npy"});
}

// `poslab methods` prints the core's table; the trainer's rows are what `train --position` takes.
TEST_F(Cli, MethodsPrintsTheTableTheTrainerChoosesFrom) {
  const RunResult r = run({"methods"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json table = nlohmann::json::parse(r.out);
  std::vector<std::string> names, trainer;
  for (const auto& m : table) {
    names.push_back(m.at("name"));
    if (m.at("support").at("trainer")) trainer.push_back(m.at("name"));
    EXPECT_EQ(m.at("support").size(), 9u) << m.dump();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"learned", "sinusoidal", "shaw", "rope", "p-rope",
                                             "xpos", "alibi", "t5", "kerple", "fire", "cope", "fox",
                                             "abacus", "none"}));
  EXPECT_EQ(table[3].at("options")[0].at("name"), "base");
  EXPECT_EQ(table[3].at("kind"), "rotation");
  EXPECT_EQ(table[3].at("pairs"), "neox");
  EXPECT_EQ(table[4].at("options")[1].at("name"), "keepFraction");
  EXPECT_EQ(table[5].at("pairs"), "gptj");
  EXPECT_FALSE(table[6].contains("pairs"));  // ALiBi does not rotate
  // Relative methods: a shift leaves their scores; the absolute tables (Abacus's of digit places
  // too) and xPos's centred scale do not.
  for (const auto& m : table) {
    const bool relative = m.at("support").at("relative");
    EXPECT_EQ(relative, m.at("name") != "learned" && m.at("name") != "sinusoidal" &&
                            m.at("name") != "xpos" && m.at("name") != "fire" &&
                            m.at("name") != "abacus")
        << m.at("name");
    // Only Abacus computes its own positions (from the tokens).
    EXPECT_EQ(m.at("support").at("ownPositions"), m.at("name") == "abacus") << m.at("name");
  }
  const RunResult help = run({"train", "--help"});
  std::string choices = "{";
  for (const std::string& t : trainer) choices += (choices.size() > 1 ? "," : "") + t;
  EXPECT_NE(help.out.find(choices + "}"), std::string::npos) << help.out;
}

TEST_F(Cli, VersionPrintsTheVersion) {
  const RunResult r = run({"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("poslab ", 0), 0u) << r.out;
}

TEST_F(Cli, OutputReplacesAnExistingFile) {
  put("pe.npy", "old");
  ASSERT_EQ(run({"sinusoidal", "--len", "2", "--dim", "2", "-o", "pe.npy"}).status, 0);
  EXPECT_EQ(parse_npy(read_file(path("pe.npy")), "pe.npy").shape, (Shape{2, 2}));
  EXPECT_EQ(listing(), (std::set<std::string>{"pe.npy", "x.npy"}));
}

}  // namespace
}  // namespace poslab::test
