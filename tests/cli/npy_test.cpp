// The .npy reader and writer: what numpy writes is read, what PosLab writes is what numpy
// writes, and every malformed file is refused with a message naming it.
#include "poslab/io/npy.hpp"

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "fixtures.hpp"
#include "output_files.hpp"
#include "poslab/base/errors.hpp"

namespace poslab::test {
namespace {

// parse_npy's message for `bytes`, or "" if it parsed.
std::string parse_error(const std::string& bytes, const std::string& name = "q.npy") {
  try {
    parse_npy(bytes, name);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Checks that parse_npy refuses `bytes` with a message that names the file and contains
// `fragment`. `context` labels a failure inside a loop.
void expect_refused(const std::string& bytes, const std::string& fragment,
                    const std::string& context = "") {
  const std::string message = parse_error(bytes);
  EXPECT_EQ(message.rfind("q.npy: ", 0), 0u) << context << " message: " << message;
  EXPECT_NE(message.find(fragment), std::string::npos) << context << " message: " << message;
}

const std::string kTwoByTwo = raw<float>({1, 2, 3, 4});

TEST(Npy, FloatRoundTripsThroughEncodeAndParse) {
  const TensorF t({2, 3}, std::vector<float>{0.5f, -1.25f, 3e-8f, 1e30f, -0.0f, 7});
  const TensorF back = parse_npy(encode_npy(t), "t.npy");
  EXPECT_EQ(back.shape, t.shape);
  EXPECT_EQ(raw(back.data), raw(t.data));  // bit for bit, -0.0 included
}

TEST(Npy, IntRoundTripsAsFloat) {
  const TensorI t({3}, std::vector<std::int32_t>{-7, 0, 1 << 20});
  const std::string bytes = encode_npy(t);
  EXPECT_NE(bytes.find("'descr': '<i4'"), std::string::npos);
  const TensorF back = parse_npy(bytes, "t.npy");
  EXPECT_EQ(back.shape, Shape{3});
  EXPECT_EQ(back.data, (std::vector<float>{-7, 0, 1 << 20}));
}

TEST(Npy, EncodedHeaderIsNumpysVersion1PaddedTo64Bytes) {
  const TensorF t({2, 3}, "t");
  const std::string bytes = encode_npy(t);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t header_length =
      std::size_t(std::uint8_t(bytes[8])) | std::size_t(std::uint8_t(bytes[9])) << 8;
  EXPECT_EQ((10 + header_length) % 64, 0u);
  EXPECT_EQ(bytes.size(), 10 + header_length + 6 * 4);
  const std::string header = bytes.substr(10, header_length);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u);
  EXPECT_EQ(header.back(), '\n');
}

TEST(Npy, OneDimensionalShapeIsWrittenAsAOneTuple) {
  const std::string bytes = encode_npy(TensorF({5}, "t"));
  EXPECT_NE(bytes.find("'shape': (5,)"), std::string::npos);
  EXPECT_EQ(parse_npy(bytes, "t.npy").shape, Shape{5});
}

TEST(Npy, ZeroDimensionalShapeHoldsOneElement) {
  const TensorF t = parse_npy(npy_file(npy_dict("<f4", "()"), raw<float>({2.5f})), "s.npy");
  EXPECT_EQ(t.shape, Shape{});
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.data[0], 2.5f);
  EXPECT_EQ(parse_npy(encode_npy(t), "s.npy").data, t.data);
}

TEST(Npy, ZeroLengthAxisGivesAnEmptyArray) {
  const TensorF t = parse_npy(npy_file(npy_dict("<f4", "(0, 3)"), ""), "e.npy");
  EXPECT_EQ(t.shape, (Shape{0, 3}));
  EXPECT_EQ(t.size(), 0u);
}

struct DtypeCase {
  const char* descr;
  std::string data;
};

TEST(Npy, EveryDtypeIsAcceptedAndConvertedToFloat) {
  const std::vector<DtypeCase> cases = {
      {"<f4", raw<float>({1.5f, -2, 0})},      {"=f4", raw<float>({1.5f, -2, 0})},
      {"<f8", raw<double>({1.5, -2, 0})},      {"<i4", raw<std::int32_t>({1, -2, 0})},
      {"<i8", raw<std::int64_t>({1, -2, 0})},  {"|u1", raw<std::uint8_t>({1, 254, 0})},
      {"<u1", raw<std::uint8_t>({1, 254, 0})}, {"|b1", raw<std::uint8_t>({1, 1, 0})},
      {">b1", raw<std::uint8_t>({1, 1, 0})},
  };
  for (const DtypeCase& c : cases) {
    const TensorF t = parse_npy(npy_file(npy_dict(c.descr, "(3,)"), c.data), "d.npy");
    ASSERT_EQ(t.shape, Shape{3}) << c.descr;
    const float expected_second = std::string(c.descr).find("u1") != std::string::npos   ? 254.0f
                                  : std::string(c.descr).find("b1") != std::string::npos ? 1.0f
                                                                                         : -2.0f;
    const float expected_first = std::string(c.descr).find('f') != std::string::npos ? 1.5f : 1.0f;
    EXPECT_EQ(t.data[0], expected_first) << c.descr;
    EXPECT_EQ(t.data[1], expected_second) << c.descr;
    EXPECT_EQ(t.data[2], 0.0f) << c.descr;
  }
}

TEST(Npy, Float64IsRoundedToFloat32) {
  const TensorF t = parse_npy(
      npy_file(npy_dict("<f8", "(3,)"), raw<double>({0.1, 3.4028234e38, -1e-300})), "d.npy");
  EXPECT_EQ(t.data, (std::vector<float>{0.1f, 3.4028234e38f, -0.0f}));
}

TEST(Npy, Float64BeyondFloat32IsRefusedNotMadeInfinite) {
  // Once 1e300 became inf without a word; NaN and ±inf themselves pass (the consumer's rule).
  EXPECT_EQ(parse_error(npy_file(npy_dict("<f8", "(2,)"), raw<double>({0.1, -1e300}))),
            "q.npy[1] is -1.0000000000000001e+300, which overflows float32 (largest finite value "
            "3.4028235e+38)");
  const TensorF t =
      parse_npy(npy_file(npy_dict("<f8", "(2,)"), raw<double>({INFINITY, std::nan("")})), "d.npy");
  EXPECT_TRUE(std::isinf(t.data[0]));
  EXPECT_TRUE(std::isnan(t.data[1]));
}

TEST(Npy, FormatVersions2And3AreAccepted) {
  for (int major : {2, 3}) {
    const TensorF t = parse_npy(npy_file(npy_dict("<f4", "(2, 2)"), kTwoByTwo, major), "v.npy");
    EXPECT_EQ(t.shape, (Shape{2, 2})) << "version " << major;
    EXPECT_EQ(t.data, (std::vector<float>{1, 2, 3, 4}));
  }
}

TEST(Npy, HeaderSpacingQuotingAndKeyOrderAreFree) {
  const std::string dict = "{ \"shape\":(2,2,) ,\"fortran_order\" :False,'descr':'<f4'}";
  const TensorF t = parse_npy(npy_file(dict, kTwoByTwo), "h.npy");
  EXPECT_EQ(t.shape, (Shape{2, 2}));
}

TEST(Npy, ErrorsNameTheFile) {
  EXPECT_EQ(parse_error("junk", "data/q.npy").rfind("data/q.npy: ", 0), 0u);
}

TEST(Npy, WrongMagicIsRejected) {
  std::string bytes = npy_f4(2, 2, {1, 2, 3, 4});
  bytes[1] = 'n';
  expect_refused(bytes, "not a .npy file");
  expect_refused("", "not a .npy file");
  expect_refused("PK\x03\x04 a zip file", "not a .npy file");
}

TEST(Npy, FileEndingInsideThePreambleIsRejected) {
  const std::string bytes = npy_f4(2, 2, {1, 2, 3, 4});
  for (std::size_t n : {6u, 7u, 8u, 9u}) expect_refused(bytes.substr(0, n), "truncated");
}

TEST(Npy, UnsupportedVersionIsRejected) {
  std::string bytes = npy_f4(2, 2, {1, 2, 3, 4});
  bytes[6] = 4;
  expect_refused(bytes, "version 4.0");
  bytes[6] = 1;
  bytes[7] = 1;
  expect_refused(bytes, "version 1.1");
}

TEST(Npy, HeaderLengthPastTheEndIsRejected) {
  std::string bytes = npy_f4(2, 2, {1, 2, 3, 4});
  bytes[8] = '\xff';
  bytes[9] = '\x7f';
  expect_refused(bytes, "truncated");
}

TEST(Npy, ImplausibleHeaderLengthIsRejected) {
  std::string bytes = npy_file(npy_dict("<f4", "(2, 2)"), kTwoByTwo, 2);
  bytes[11] = '\x7f';  // a 2 GiB header
  expect_refused(bytes, "header length");
}

TEST(Npy, TruncatedDataIsRejected) {
  const std::string bytes = npy_f4(2, 2, {1, 2, 3, 4});
  const std::string message = parse_error(bytes.substr(0, bytes.size() - 3));
  EXPECT_NE(message.find("q.npy: truncated: header says 16 bytes of data, file has 13"),
            std::string::npos)
      << message;
}

TEST(Npy, TrailingDataIsRejected) {
  expect_refused(npy_f4(2, 2, {1, 2, 3, 4}) + "xyz", "3 unexpected bytes");
}

TEST(Npy, BigEndianIsRejected) {
  expect_refused(npy_file(npy_dict(">f4", "(2, 2)"), kTwoByTwo), "big-endian");
  expect_refused(npy_file(npy_dict(">i8", "(2,)"), kTwoByTwo), "big-endian");
}

TEST(Npy, FortranOrderIsRejected) {
  expect_refused(npy_file(npy_dict("<f4", "(2, 2)", "True"), kTwoByTwo), "Fortran");
}

TEST(Npy, UnknownDtypeIsRejected) {
  for (const char* descr : {"<f2", "<c8", "<u4", "<U4", "|O", "|f4", "f4", "<f4 ", "|V16"}) {
    expect_refused(npy_file(npy_dict(descr, "(2, 2)"), kTwoByTwo), "dtype", descr);
  }
}

TEST(Npy, MalformedHeaderIsRejected) {
  const std::vector<std::string> dicts = {
      "",
      "{",
      "[]",
      "{'descr': '<f4', 'fortran_order': False}",                                   // no shape
      "{'descr': '<f4', 'shape': (2, 2)}",                                          // no order
      "{'fortran_order': False, 'shape': (2, 2)}",                                  // no descr
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'x': 1}",          // extra key
      "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)}",  // twice
      "{'descr': '<f4' 'fortran_order': False, 'shape': (2, 2)}",                   // no comma
      "{'descr': '<f4', 'fortran_order': false, 'shape': (2, 2)}",                  // not Python
      "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 2]}",                  // a list
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0, 2)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2}",
      "{'descr': '<f4, 'fortran_order': False, 'shape': (2, 2)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4)}",  // an int, not a tuple
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)} trailing",
  };
  for (const std::string& dict : dicts) {
    expect_refused(npy_file(dict, kTwoByTwo), "malformed header", dict);
  }
}

TEST(Npy, NegativeDimensionIsRejected) {
  expect_refused(npy_file(npy_dict("<f4", "(-2, 2)"), kTwoByTwo), "negative");
}

TEST(Npy, AbsurdShapeIsRefusedBeforeAllocating) {
  // 10^12 elements and a product that overflows 64 bits: both must fail on the shape alone.
  expect_refused(npy_file(npy_dict("<f4", "(1000000, 1000000)"), kTwoByTwo), "limit");
  expect_refused(npy_file(npy_dict("<f4", "(4294967296, 4294967296, 16)"), kTwoByTwo),
                 "axis 0 has 4294967296 entries");
  // With another axis 0 the product is 0, but a loop over the huge axis would run for days.
  expect_refused(npy_file(npy_dict("<f4", "(0, 1125899906842624, 2)"), ""),
                 "axis 1 has 1125899906842624 entries; the limit is");
  expect_refused(npy_file(npy_dict("<f4", "(99999999999999999999999999,)"), kTwoByTwo), "q.npy");
}

TEST(Npy, ReadNpyNamesAMissingFile) {
  try {
    read_npy("/nonexistent/dir/x.npy");
    FAIL() << "read_npy did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/dir/x.npy: cannot open", 0), 0u)
        << e.what();
  }
}

class NpyFile : public Sandbox {};

void write_one(const std::string& path, const std::string& bytes) {
  cli::OutputFiles files;
  files.add(path, bytes);
  files.commit();
}

TEST_F(NpyFile, ReadNpyReadsWhatOutputFilesWrote) {
  const TensorF t({3, 2}, std::vector<float>{1, 2, 3, 4, 5, 6});
  write_one(path("t.npy"), encode_npy(t));
  const TensorF back = read_npy(path("t.npy"));
  EXPECT_EQ(back.shape, t.shape);
  EXPECT_EQ(back.data, t.data);
  EXPECT_EQ(listing(), std::set<std::string>{"t.npy"});
}

TEST_F(NpyFile, ReadNpyReadsAFileLongerThanOneChunk) {
  const std::vector<float> values(300 * 300, 0.25f);
  put("big.npy", npy_file(npy_dict("<f4", "(300, 300)"), raw(values)));
  EXPECT_EQ(read_npy(path("big.npy")).data, values);
}

TEST_F(NpyFile, ReadNpyStopsAtTheEndTheShapeImplies) {
  const std::vector<float> values(300 * 300, 0.25f);
  put("big.npy", npy_file(npy_dict("<f4", "(300, 300)"), raw(values) + std::string(70000, 'x')));
  EXPECT_THROW(read_npy(path("big.npy")), Error);
  // An endless stream is judged by its first bytes, not read to the end.
  EXPECT_THROW(read_npy("/dev/zero"), Error);
}

TEST_F(NpyFile, ReadNpyRejectsADirectory) { EXPECT_THROW(read_npy(path("")), Error); }

TEST_F(NpyFile, WriteReplacesAnExistingFileAndLeavesNoTemporary) {
  put("t.npy", "old contents that are longer than the new ones");
  write_one(path("t.npy"), "new");
  EXPECT_EQ(read_file(path("t.npy")), "new");
  EXPECT_EQ(listing(), std::set<std::string>{"t.npy"});
}

TEST_F(NpyFile, WriteIntoAMissingDirectoryFailsAndLeavesNothing) {
  try {
    write_one(path("missing/t.npy"), "x");
    FAIL() << "write_file_atomically did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(listing().empty());
}

TEST_F(NpyFile, WriteOverADirectoryFailsAndRemovesItsTemporary) {
  std::filesystem::create_directory(path("d.npy"));
  EXPECT_THROW(write_one(path("d.npy"), "x"), Error);
  EXPECT_EQ(listing(), std::set<std::string>{"d.npy"});
}

TEST_F(NpyFile, WriteToAPathEndingInSlashIsRejected) {
  EXPECT_THROW(write_one(path("") + "/", "x"), Error);
  EXPECT_TRUE(listing().empty());
}

TEST_F(NpyFile, WrittenFileFollowsTheUmaskLikeAnyOtherFile) {
  const mode_t old = ::umask(022);
  write_one(path("t.npy"), "x");
  ::umask(old);
  struct stat info;
  ASSERT_EQ(::stat(path("t.npy").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
}

}  // namespace
}  // namespace poslab::test
