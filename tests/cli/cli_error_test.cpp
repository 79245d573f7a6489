// Every way to misuse poslab is refused cleanly: exit status 1 or 2 (2 for a wrong command
// line), one "poslab: error: ..." line, and no output or temporary file left behind.
#include <filesystem>

#include "fixtures.hpp"

namespace poslab::test {
namespace {

TEST_F(Cli, OddDimIsRejected) {
  expect_refused_saying({"sinusoidal", "--len", "4", "--dim", "7", "-o", "pe.npy"}, "even");
  expect_refused({"offset-matrix", "--dim", "5", "--k", "1", "-o", "m.npy"});
  expect_refused({"wavelengths", "--dim", "3", "-o", "w.npy"});
  expect_refused({"rope-freqs", "--dim", "7", "-o", "f.npy"});
  put("odd.npy", npy_f4(2, 5, std::vector<float>(10, 1)));
  expect_refused({"rope", "--in", "odd.npy", "-o", "y.npy"});
}

TEST_F(Cli, NegativeSizesAreRejected) {
  expect_usage_error({"sinusoidal", "--len", "-3", "--dim", "4", "-o", "pe.npy"});
  expect_usage_error({"sinusoidal", "--len=-3", "--dim", "4", "-o", "pe.npy"});
  expect_usage_error({"learned", "--len", "2", "--dim", "-4", "-o", "l.npy"});
  expect_usage_error({"alibi", "--heads", "-1", "--len", "4", "-o", "a.npy"});
  expect_usage_error({"t5-buckets", "--qlen", "-1", "--klen", "4", "-o", "b.npy"});
  expect_usage_error(
      {"shaw", "--qlen", "2", "--klen", "2", "--max-distance", "-1", "--dim", "2", "-o", "s.npy"});
  expect_usage_error({"rope", "--in", "x.npy", "--offset", "-1", "-o", "y.npy"});
  expect_usage_error({"learned", "--len", "2", "--dim", "2", "--seed", "-1", "-o", "l.npy"});
}

TEST_F(Cli, ZeroSizesAreRejected) {
  expect_refused({"sinusoidal", "--len", "0", "--dim", "4", "-o", "pe.npy"});
  expect_refused({"sinusoidal", "--len", "4", "--dim", "0", "-o", "pe.npy"});
  expect_refused({"t5-buckets", "--qlen", "4", "--klen", "4", "--buckets", "0", "-o", "b.npy"});
  expect_refused({"rope-decay", "--dim", "0", "--max-distance", "4", "-o", "d.npy"});
}

TEST_F(Cli, ZeroHeadsAreRejected) {
  expect_refused_saying({"alibi", "--heads", "0", "--len", "4", "-o", "a.npy"}, "heads");
  expect_refused_saying({"alibi-slopes", "--heads", "0", "-o", "s.npy"}, "heads");
}

TEST_F(Cli, AbsurdSizesAreRefusedBeforeAllocating) {
  // 10^15 floats: refused on the sizes alone (the test's timeout would catch an attempt).
  expect_refused({"sinusoidal", "--len", "1000000000", "--dim", "1000000", "-o", "pe.npy"});
  expect_refused({"sinusoidal", "--len", "100000", "--dim", "100000", "-o", "pe.npy"});
  expect_refused({"alibi", "--heads", "64", "--len", "100000", "-o", "a.npy"});
  expect_refused({"t5-buckets", "--qlen", "1000000", "--klen", "1000000", "-o", "b.npy"});
  expect_refused({"shaw", "--qlen", "100000", "--klen", "100000", "--max-distance", "4", "--dim",
                  "64", "-o", "s.npy"});
  expect_refused({"learned", "--len", "9223372036854775807", "--dim", "2", "-o", "l.npy"});
  expect_usage_error({"learned", "--len", "99999999999999999999", "--dim", "2", "-o", "l.npy"});
}

// poslab kerple: a grid (--len, or --qlen with --klen), positive r1 and r2, sizes checked before
// allocating; --keep-fraction in [0, 1], only where the method has the option.
TEST_F(Cli, KerpleAndKeepFractionRefuseBadValues) {
  expect_usage_error({"kerple", "--heads", "2", "-o", "k.npy"});
  expect_usage_error(
      {"kerple", "--heads", "2", "--len", "4", "--qlen", "4", "--klen", "4", "-o", "k.npy"});
  expect_usage_error({"kerple", "--heads", "2", "--qlen", "4", "-o", "k.npy"});
  expect_usage_error({"kerple", "--heads", "2", "--len", "4", "--r1", "-1", "-o", "k.npy"});
  expect_usage_error({"kerple", "--heads", "2", "--len", "4", "--r2", "nan", "-o", "k.npy"});
  expect_refused_saying({"kerple", "--heads", "0", "--len", "4", "-o", "k.npy"}, "heads");
  expect_refused({"kerple", "--heads", "64", "--len", "100000", "-o", "k.npy"});
  expect_refused_saying({"kerple", "--heads", "2", "--len", "4", "--r1", "2e6", "-o", "k.npy"},
                        "r1");
  expect_refused_saying({"rope-freqs", "--dim", "8", "--keep-fraction", "1.5", "-o", "f.npy"},
                        "kept fraction");
  expect_refused_saying({"train", "--task", "copy", "--position", "rope", "--train-len", "4",
                         "--keep-fraction", "0.5", "--steps", "1", "-o", "r.json"},
                        "kept fraction is an option of p-rope");
}

TEST_F(Cli, NonNumericValuesAreRejected) {
  expect_usage_error({"sinusoidal", "--len", "abc", "--dim", "4", "-o", "pe.npy"});
  expect_usage_error({"sinusoidal", "--len", "4.5", "--dim", "4", "-o", "pe.npy"});
  expect_usage_error({"sinusoidal", "--len", "4", "--dim", "4", "--base", "x", "-o", "pe.npy"});
  expect_usage_error({"sinusoidal", "--len", "4", "--dim", "4", "--base", "nan", "-o", "pe.npy"});
  expect_usage_error({"norm", "--kind", "rmsnorm", "--in", "x.npy", "--eps", "inf", "-o", "n.npy"});
}

TEST_F(Cli, BadNumericValuesAreRejected) {
  expect_refused({"sinusoidal", "--len", "4", "--dim", "4", "--base", "-2", "-o", "pe.npy"});
  expect_refused({"norm", "--kind", "layernorm", "--in", "x.npy", "--eps", "-1", "-o", "n.npy"});
  expect_refused({"rope", "--in", "x.npy", "--rotary-fraction", "0", "-o", "y.npy"});
  expect_refused(
      {"rope", "--in", "x.npy", "--scaling", "linear", "--factor", "0.5", "-o", "y.npy"});
}

TEST_F(Cli, UnknownOptionIsRejected) {
  expect_usage_error({"sinusoidal", "--len", "4", "--dim", "4", "--lenght", "5", "-o", "pe.npy"});
  expect_usage_error({"--frobnicate"});
  expect_usage_error({"sinusoidal", "--len", "4", "--dim", "4", "-o", "pe.npy", "extra"});
}

TEST_F(Cli, UnknownCommandIsRejected) {
  expect_refused_saying({"sinusiodal", "--len", "4"}, "sinusiodal");
  EXPECT_EQ(run({"sinusiodal"}).status, 2);
}

TEST_F(Cli, MissingCommandIsRejected) { expect_usage_error({}); }

TEST_F(Cli, MissingRequiredOptionIsRejected) {
  expect_usage_error({"sinusoidal", "--dim", "4", "-o", "pe.npy"});
  expect_usage_error({"sinusoidal", "--len", "4", "--dim", "4"});
  expect_usage_error({"attention", "--q", "x.npy", "--k", "x.npy", "-o", "o.npy"});
  expect_usage_error({"norm", "--in", "x.npy", "-o", "n.npy"});
  expect_usage_error({"sinusoidal", "--len"});
}

TEST_F(Cli, UnknownValuesAreRejected) {
  expect_refused_saying(
      {"sinusoidal", "--len", "4", "--dim", "4", "--layout", "foo", "-o", "pe.npy"}, "foo");
  expect_refused_saying({"attention", "--q", "x.npy", "--k", "x.npy", "--v", "x.npy", "--mask",
                         "bogus", "-o", "o.npy"},
                        "bogus");
  expect_refused_saying({"rope", "--in", "x.npy", "--scaling", "foo", "-o", "y.npy"}, "foo");
  expect_refused({"rope", "--in", "x.npy", "--style", "llama", "-o", "y.npy"});
  expect_refused({"similarity", "--in", "x.npy", "--metric", "l2", "-o", "s.npy"});
  expect_refused({"norm", "--kind", "batchnorm", "--in", "x.npy", "-o", "n.npy"});
}

TEST_F(Cli, WindowZeroIsRejected) {
  for (const char* mask : {"window:0", "window:-2", "window:", "window:x"}) {
    expect_refused({"attention", "--q", "x.npy", "--k", "x.npy", "--v", "x.npy", "--mask", mask,
                    "-o", "o.npy"});
  }
}

TEST_F(Cli, ScalingWithoutItsParametersIsRejected) {
  expect_refused({"rope", "--in", "x.npy", "--scaling", "yarn", "--factor", "4", "-o", "y.npy"});
  expect_refused(
      {"rope-freqs", "--dim", "8", "--scaling", "llama3", "--factor", "8", "-o", "f.npy"});
}

TEST_F(Cli, MissingInputFileIsRejected) {
  expect_refused_saying({"rope", "--in", "nope.npy", "-o", "y.npy"}, "nope.npy");
  expect_refused_saying({"similarity", "--in", "nope.npy", "-o", "s.npy"}, "nope.npy");
}

TEST_F(Cli, TruncatedNpyIsRejected) {
  const std::string whole = npy_f4(3, 4, std::vector<float>(12, 1));
  put("t.npy", whole.substr(0, whole.size() - 5));
  expect_refused_saying({"rope", "--in", "t.npy", "-o", "y.npy"}, "t.npy: truncated");
  put("t.npy", whole.substr(0, 30));
  expect_refused_saying({"rope", "--in", "t.npy", "-o", "y.npy"}, "truncated");
  put("t.npy", "");
  expect_refused({"rope", "--in", "t.npy", "-o", "y.npy"});
}

TEST_F(Cli, MalformedHeaderIsRejected) {
  put("m.npy", npy_file("{'descr': '<f4', 'shape': (3, 4)}", std::string(48, '\0')));
  expect_refused_saying({"norm", "--kind", "rmsnorm", "--in", "m.npy", "-o", "n.npy"},
                        "malformed header");
  put("m.npy", npy_file(npy_dict("<f4", "(3, 4)", "True"), std::string(48, '\0')));
  expect_refused_saying({"norm", "--kind", "rmsnorm", "--in", "m.npy", "-o", "n.npy"}, "Fortran");
  put("m.npy", npy_file(npy_dict(">f4", "(3, 4)"), std::string(48, '\0')));
  expect_refused_saying({"norm", "--kind", "rmsnorm", "--in", "m.npy", "-o", "n.npy"},
                        "big-endian");
  put("m.npy", npy_file(npy_dict("<c8", "(3, 4)"), std::string(96, '\0')));
  expect_refused_saying({"norm", "--kind", "rmsnorm", "--in", "m.npy", "-o", "n.npy"}, "dtype");
}

TEST_F(Cli, WrongMagicIsRejected) {
  std::string bytes = npy_f4(3, 4, std::vector<float>(12, 1));
  bytes[0] = 'X';
  put("w.npy", bytes);
  expect_refused_saying({"similarity", "--in", "w.npy", "-o", "s.npy"}, "not a .npy file");
  put("w.csv", "1,2,3\n");
  expect_refused({"similarity", "--in", "w.csv", "-o", "s.npy"});
}

TEST_F(Cli, ShapeMismatchBetweenQAndKIsRejected) {
  const std::vector<std::string> command = {"attention", "--q",   "q.npy", "--k",  "k.npy",
                                            "--v",       "v.npy", "-o",    "o.npy"};
  put("q.npy", npy_f4(2, 4, std::vector<float>(8, 1)));
  put("k.npy", npy_f4(3, 5, std::vector<float>(15, 1)));
  put("v.npy", npy_f4(3, 4, std::vector<float>(12, 1)));
  expect_refused_saying(command, "widths differ");
  // v must have one row per key.
  put("k.npy", npy_f4(3, 4, std::vector<float>(12, 1)));
  put("v.npy", npy_f4(2, 4, std::vector<float>(8, 1)));
  expect_refused(command);
  // 2-D queries with 3-D keys.
  put("k.npy", npy_file(npy_dict("<f4", "(1, 2, 4)"), raw(std::vector<float>(8, 1))));
  put("v.npy", npy_f4(2, 4, std::vector<float>(8, 1)));
  expect_refused(command);
}

TEST_F(Cli, KeyPaddingAndBiasOfTheWrongShapeAreRejected) {
  put("pad.npy", npy_file(npy_dict("|b1", "(2,)"), std::string(2, '\0')));
  expect_refused({"attention", "--q", "x.npy", "--k", "x.npy", "--v", "x.npy", "--key-padding",
                  "pad.npy", "-o", "o.npy"});
  put("pad.npy", npy_f4(1, 3, {0, 0, 1}));
  expect_refused({"attention", "--q", "x.npy", "--k", "x.npy", "--v", "x.npy", "--key-padding",
                  "pad.npy", "-o", "o.npy"});
  put("bias.npy", npy_f4(3, 2, std::vector<float>(6, 0)));
  expect_refused({"attention", "--q", "x.npy", "--k", "x.npy", "--v", "x.npy", "--bias", "bias.npy",
                  "-o", "o.npy"});
}

TEST_F(Cli, NormParametersOfTheWrongShapeAreRejected) {
  put("g.npy", npy_file(npy_dict("<f4", "(3,)"), raw<float>({1, 1, 1})));
  expect_refused(
      {"norm", "--kind", "layernorm", "--in", "x.npy", "--gamma", "g.npy", "-o", "n.npy"});
  put("b.npy", npy_file(npy_dict("<f4", "(4,)"), raw<float>({0, 0, 0, 0})));
  expect_usage_error(
      {"norm", "--kind", "rmsnorm", "--in", "x.npy", "--beta", "b.npy", "-o", "n.npy"});
}

TEST_F(Cli, UnknownOutputExtensionIsRejected) {
  expect_usage_error({"sinusoidal", "--len", "4", "--dim", "4", "-o", "pe.txt"});
  expect_usage_error({"sinusoidal", "--len", "4", "--dim", "4", "-o", "pe"});
  expect_usage_error({"sinusoidal", "--len", "4", "--dim", "4", "-o", "dir.npy/pe"});
  expect_usage_error({"attention", "--q", "x.npy", "--k", "x.npy", "--v", "x.npy", "--weights",
                      "w.bin", "-o", "o.npy"});
}

TEST_F(Cli, OutputIntoAMissingDirectoryIsRejected) {
  expect_refused_saying({"sinusoidal", "--len", "4", "--dim", "4", "-o", "missing/pe.npy"},
                        "does not exist");
  // The attention output is fine but the weights cannot be written: neither may be left.
  expect_refused({"attention", "--q", "x.npy", "--k", "x.npy", "--v", "x.npy", "--weights",
                  "missing/w.npy", "-o", "o.npy"});
}

TEST_F(Cli, OutputOverADirectoryIsRejected) {
  std::filesystem::create_directory(path("taken.npy"));
  expect_refused({"sinusoidal", "--len", "4", "--dim", "4", "-o", "taken.npy"});
  // The output is written first, then the weights fail: the output must be taken back.
  expect_refused({"attention", "--q", "x.npy", "--k", "x.npy", "--v", "x.npy", "--weights",
                  "taken.npy", "-o", "o.npy"});
}

TEST_F(Cli, WeightsAndOutputMustBeDifferentFiles) {
  expect_usage_error({"attention", "--q", "x.npy", "--k", "x.npy", "--v", "x.npy", "--weights",
                      "o.npy", "-o", "o.npy"});
}

TEST_F(Cli, FailedRunKeepsThePreviousOutput) {
  put("pe.npy", "previous");
  expect_refused({"sinusoidal", "--len", "4", "--dim", "7", "-o", "pe.npy"});
  EXPECT_EQ(read_file(path("pe.npy")), "previous");
}

TEST_F(Cli, TextOutputOfAHugeArrayIsRefusedWithAHint) {
  // 5·2048² ≈ 2^24.3 elements: fine as .npy (80 MiB), too many for a CSV file.
  expect_refused_saying({"alibi", "--heads", "5", "--len", "2048", "-o", "a.csv"}, ".npy");
}

}  // namespace
}  // namespace poslab::test
