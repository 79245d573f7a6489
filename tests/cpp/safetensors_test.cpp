// The .safetensors reader and writer: bit-exact round trips (F32, F16), BF16 widened exactly,
// exact half-precision and bfloat16 conversion, and every malformed file refused with
// poslab::Error naming the problem.
#include "poslab/io/safetensors.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include "reference.hpp"

namespace {

using poslab::Error;
using poslab::StoredDType;
using poslab::TensorF;

std::uint32_t bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// A file from a header written by hand: 8-byte little-endian length, header, buffer.
std::string file_with(const std::string& header, const std::string& buffer,
                      std::uint64_t length = UINT64_MAX) {
  if (length == UINT64_MAX) length = header.size();
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  return out + header + buffer;
}

// parse_safetensors must throw poslab::Error whose message contains `fragment`.
void expect_refused(const std::string& bytes, const std::string& fragment) {
  try {
    poslab::parse_safetensors(bytes, "bad.safetensors");
    ADD_FAILURE() << "accepted; expected an error mentioning '" << fragment << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << "message: " << e.what() << "\nexpected to mention: " << fragment;
    EXPECT_EQ(std::string(e.what()).rfind("bad.safetensors: ", 0), 0u) << e.what();
  }
}

TEST(Safetensors, F32RoundTripIsBitIdentical) {
  TensorF a = ref::random_tensor({3, 5}, 1, -3, 3);
  a.data[0] = -0.0f;
  a.data[1] = std::numeric_limits<float>::denorm_min();
  a.data[2] = std::numeric_limits<float>::infinity();
  const TensorF b = ref::random_tensor({7}, 2);
  const TensorF scalar({}, std::vector<float>{4.5f});
  const TensorF empty({0, 3}, std::vector<float>{});
  const std::string bytes =
      poslab::encode_safetensors({{"a", &a}, {"b.weight", &b}, {"s", &scalar}, {"e", &empty}},
                                 StoredDType::kF32, {{"format", "pt"}});
  // The buffer starts 8-byte aligned, as the reference writer pads the header.
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  EXPECT_EQ(n % 8, 0u);

  const poslab::SafetensorsFile file = poslab::parse_safetensors(bytes, "t.safetensors");
  ASSERT_EQ(file.tensors.size(), 4u);
  EXPECT_EQ(file.metadata.at("format"), "pt");
  for (const auto& [name, original] :
       {std::pair<const char*, const TensorF*>{"a", &a}, std::pair{"b.weight", &b},
        std::pair{"s", &scalar}, std::pair{"e", &empty}}) {
    const TensorF& got = file.tensors.at(name);
    ASSERT_EQ(got.shape, original->shape) << name;
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_EQ(bits(got.data[i]), bits(original->data[i]));
    EXPECT_EQ(file.dtypes.at(name), StoredDType::kF32);
  }
}

TEST(Safetensors, ReadFromFileMatchesParse) {
  const TensorF a = ref::random_tensor({4, 6}, 3);
  const std::string bytes = poslab::encode_safetensors({{"a", &a}}, StoredDType::kF16);
  const std::string path =
      ::testing::TempDir() + "poslab-st-" + std::to_string(::getpid()) + ".safetensors";
  std::ofstream(path, std::ios::binary) << bytes;
  const poslab::SafetensorsFile from_file = poslab::read_safetensors(path);
  const poslab::SafetensorsFile from_bytes = poslab::parse_safetensors(bytes, path);
  std::remove(path.c_str());
  EXPECT_EQ(from_file.tensors.at("a").data, from_bytes.tensors.at("a").data);
  EXPECT_EQ(from_file.dtypes.at("a"), StoredDType::kF16);
  EXPECT_THROW(poslab::read_safetensors(path), Error);  // gone now: cannot open
}

TEST(Safetensors, HalfToFloatIsExactForEveryBitPattern) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float f = poslab::half_to_float(static_cast<std::uint16_t>(h));
    const std::uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exponent == 0x1f) {
      EXPECT_TRUE(mantissa ? std::isnan(f) : std::isinf(f)) << h;
      continue;
    }
    // Independent decoding: subnormal m·2^-24, normal (1024 + m)·2^(e−25).
    const double want = exponent == 0 ? sign * std::ldexp(double(mantissa), -24)
                                      : sign * std::ldexp(1024.0 + mantissa, int(exponent) - 25);
    EXPECT_EQ(double(f), want) << h;
    EXPECT_EQ(std::signbit(f), bool(h & 0x8000)) << h;
    // And back: every finite half survives float_to_half exactly.
    EXPECT_EQ(poslab::float_to_half(f), h) << h;
  }
}

TEST(Safetensors, FloatToHalfRoundsToNearestEven) {
  EXPECT_EQ(poslab::float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(poslab::float_to_half(1.0f + 0x1p-11f), 0x3c00);             // tie → even
  EXPECT_EQ(poslab::float_to_half(1.0f + 3 * 0x1p-11f), 0x3c02);         // tie → even (up)
  EXPECT_EQ(poslab::float_to_half(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);  // above the tie
  EXPECT_EQ(poslab::float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(poslab::float_to_half(65520.0f), 0x7c00);  // rounds past the largest half
  EXPECT_EQ(poslab::float_to_half(0x1p-25f), 0x0000);  // half the smallest subnormal: even
  EXPECT_EQ(poslab::float_to_half(0x1.8p-25f), 0x0001);
  EXPECT_EQ(poslab::float_to_half(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(poslab::half_to_float(poslab::float_to_half(NAN))));
}

TEST(Safetensors, F16FileRoundTripsHalfValuesExactly) {
  TensorF a = ref::random_tensor({8, 9}, 4, -2, 2);
  // Values already representable in half survive F16 storage bit for bit.
  for (float& v : a.data) v = poslab::half_to_float(poslab::float_to_half(v));
  const poslab::SafetensorsFile file = poslab::parse_safetensors(
      poslab::encode_safetensors({{"a", &a}}, StoredDType::kF16), "h.safetensors");
  EXPECT_EQ(file.dtypes.at("a"), StoredDType::kF16);
  EXPECT_EQ(file.tensors.at("a").data, a.data);
}

TEST(Safetensors, Bfloat16ToFloatIsTheHighHalfOfEveryBitPattern) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float f = poslab::bfloat16_to_float(static_cast<std::uint16_t>(h));
    EXPECT_EQ(bits(f), h << 16) << h;
    if ((h & 0x7fff) > 0x7f80) {  // NaN: stays NaN, quiet
      EXPECT_TRUE(std::isnan(f)) << h;
      EXPECT_EQ(poslab::float_to_bfloat16(f), h | 0x40) << h;
    } else {  // every other bfloat16 survives float_to_bfloat16 exactly
      EXPECT_EQ(poslab::float_to_bfloat16(f), h) << h;
    }
  }
}

TEST(Safetensors, FloatToBfloat16RoundsToNearestEven) {
  EXPECT_EQ(poslab::float_to_bfloat16(1.0f), 0x3f80);
  EXPECT_EQ(poslab::float_to_bfloat16(1.0f + 0x1p-8f), 0x3f80);             // tie → even
  EXPECT_EQ(poslab::float_to_bfloat16(1.0f + 3 * 0x1p-8f), 0x3f82);         // tie → even (up)
  EXPECT_EQ(poslab::float_to_bfloat16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);  // above the tie
  EXPECT_EQ(poslab::float_to_bfloat16(-1.0f - 0x1p-7f), 0xbf81);
  // float32's exponent range: past F16's 65504 and below its smallest subnormal.
  EXPECT_EQ(poslab::float_to_bfloat16(65536.0f), 0x4780);
  EXPECT_EQ(poslab::float_to_bfloat16(1e30f), 0x714a);  // 0x7149f2ca rounds up
  EXPECT_EQ(poslab::bfloat16_to_float(poslab::float_to_bfloat16(0x1p-100f)), 0x1p-100f);
  EXPECT_EQ(poslab::float_to_bfloat16(0x1.fep127f), 0x7f7f);  // the largest bfloat16
  EXPECT_EQ(poslab::float_to_bfloat16(std::numeric_limits<float>::max()), 0x7f80);  // → ∞
  EXPECT_EQ(poslab::float_to_bfloat16(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(poslab::float_to_bfloat16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(poslab::float_to_bfloat16(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(poslab::bfloat16_to_float(poslab::float_to_bfloat16(NAN))));
}

// BF16 is read widened to float32, bit for bit: what the file holds is each value rounded to
// bfloat16, including values F16 could not hold.
TEST(Safetensors, Bf16FileIsReadAsTheBfloat16RoundedFloats) {
  TensorF a = ref::random_tensor({8, 9}, 4, -2, 2);
  a.data[0] = 1e30f;
  a.data[1] = -70000.0f;
  a.data[2] = 0x1p-120f;
  a.data[3] = -0.0f;
  const TensorF empty({0, 3}, std::vector<float>{});
  const std::string bytes =
      poslab::encode_safetensors({{"a", &a}, {"e", &empty}}, StoredDType::kBF16);
  EXPECT_NE(bytes.find(R"("dtype":"BF16")"), std::string::npos);
  const poslab::SafetensorsHeader header =
      poslab::parse_safetensors_header(bytes, bytes.size(), "b.safetensors");
  ASSERT_EQ(header.entries.size(), 2u);
  EXPECT_EQ(header.entries[0].dtype, StoredDType::kBF16);
  EXPECT_TRUE(header.entries[0].loadable);
  EXPECT_EQ(header.entries[0].end - header.entries[0].begin, a.size() * 2);

  const std::string path =
      ::testing::TempDir() + "poslab-st-bf16-" + std::to_string(::getpid()) + ".safetensors";
  std::ofstream(path, std::ios::binary) << bytes;
  const poslab::SafetensorsFile from_file = poslab::read_safetensors(path);
  std::remove(path.c_str());
  const poslab::SafetensorsFile file = poslab::parse_safetensors(bytes, "b.safetensors");
  for (const poslab::SafetensorsFile* f : {&file, &from_file}) {
    EXPECT_EQ(f->dtypes.at("a"), StoredDType::kBF16);
    const TensorF& got = f->tensors.at("a");
    ASSERT_EQ(got.shape, a.shape);
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(bits(got.data[i]), std::uint32_t(poslab::float_to_bfloat16(a.data[i])) << 16) << i;
    }
    EXPECT_EQ(f->tensors.at("e").shape, empty.shape);
  }
  EXPECT_EQ(file.tensors.at("a").data[1], -70144.0f);  // the nearest bfloat16
  EXPECT_EQ(bits(file.tensors.at("a").data[3]), 0x80000000u);
}

// A StoredTensor holds BF16 as its bits, two bytes an element, and widens it exactly: at(),
// widen() to float and to double, to_float(). from() rounds to nearest even, as the writer.
TEST(Safetensors, StoredTensorsHoldBf16AsItsBits) {
  EXPECT_EQ(poslab::item_size(StoredDType::kBF16), 2u);
  EXPECT_STREQ(poslab::dtype_name(StoredDType::kBF16), "BF16");
  const TensorF values({5}, std::vector<float>{1.0f, -70000.0f, 1e6f, 3.14159f, -0.0f});
  const poslab::StoredTensor t = poslab::StoredTensor::from(values, StoredDType::kBF16);
  EXPECT_EQ(t.dtype, StoredDType::kBF16);
  EXPECT_EQ(t.size(), 5u);
  EXPECT_EQ(t.bytes(), 10u);
  EXPECT_TRUE(t.f32.empty());
  std::vector<float> as_float(5);
  std::vector<double> as_double(5);
  t.widen(0, 5, as_float.data());
  t.widen(0, 5, as_double.data());
  const TensorF whole = t.to_float();
  for (std::size_t i = 0; i < 5; ++i) {
    const float want = poslab::bfloat16_to_float(poslab::float_to_bfloat16(values.data[i]));
    EXPECT_EQ(bits(t.at(i)), bits(want)) << i;
    EXPECT_EQ(bits(as_float[i]), bits(want)) << i;
    EXPECT_EQ(as_double[i], double(want)) << i;
    EXPECT_EQ(bits(whole.data[i]), bits(want)) << i;
  }
  EXPECT_EQ(t.at(1), -70144.0f);  // past F16's range, kept
  EXPECT_EQ(t.at(2), 999424.0f);
  const poslab::StoredTensor zeros({3}, StoredDType::kBF16, "w");
  EXPECT_EQ(zeros.bytes(), 6u);
  EXPECT_EQ(zeros.at(2), 0.0f);
}

// transposed() turns a 2-D tensor in its own dtype, bits unchanged, over sizes that are not
// multiples of its tile (33 × 70), and refuses anything but a matrix.
TEST(Safetensors, StoredTensorsTransposeInTheirDtype) {
  constexpr std::size_t kRows = 33, kCols = 70;
  TensorF values({kRows, kCols});
  for (std::size_t i = 0; i < values.size(); ++i) values.data[i] = float(i) * 0.37f - 100.0f;
  for (const StoredDType dtype : {StoredDType::kF32, StoredDType::kF16, StoredDType::kBF16}) {
    const poslab::StoredTensor t = poslab::StoredTensor::from(values, dtype);
    const poslab::StoredTensor u = poslab::transposed(t);
    ASSERT_EQ(u.shape, (poslab::Shape{kCols, kRows}));
    EXPECT_EQ(u.dtype, dtype);
    for (std::size_t r = 0; r < kRows; ++r) {
      for (std::size_t c = 0; c < kCols; ++c) {
        ASSERT_EQ(bits(u.at(c * kRows + r)), bits(t.at(r * kCols + c))) << r << ", " << c;
      }
    }
    EXPECT_EQ(poslab::transposed(u).to_float().data, t.to_float().data);
  }
  EXPECT_THROW(poslab::transposed(poslab::StoredTensor({3}, StoredDType::kF32, "v")),
               poslab::Error);
}

TEST(Safetensors, EveryTruncationIsRefused) {
  const TensorF a = ref::random_tensor({2, 3}, 5);
  const std::string bytes = poslab::encode_safetensors({{"a", &a}});
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_THROW(poslab::parse_safetensors(bytes.substr(0, n), "cut.safetensors"), Error) << n;
  }
  expect_refused(bytes.substr(0, 5), "too short");
  expect_refused(bytes.substr(0, bytes.size() - 1), "tensor 'a'");
  const std::string bf16 = poslab::encode_safetensors({{"a", &a}}, StoredDType::kBF16);
  for (std::size_t n = 0; n < bf16.size(); ++n) {
    EXPECT_THROW(poslab::parse_safetensors(bf16.substr(0, n), "cut.safetensors"), Error) << n;
  }
  expect_refused(bf16.substr(0, bf16.size() - 1), "tensor 'a'");
}

TEST(Safetensors, WrongHeaderLengthIsRefused) {
  const std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  const std::string buffer(4, '\0');
  expect_refused(file_with(header, buffer, header.size() + 100), "runs past the end");
  expect_refused(file_with(header, buffer, UINT64_MAX - 1), "over the limit");
  expect_refused(file_with(header, buffer, std::uint64_t{1} << 40), "over the limit");
  expect_refused(file_with(header, buffer, header.size() - 3), "not valid JSON");
  expect_refused(file_with(header, buffer, 0), "too short");
}

TEST(Safetensors, HeaderThatIsNotJsonIsRefused) {
  expect_refused(file_with("not json at all", ""), "not valid JSON");
  expect_refused(file_with("[1, 2, 3]", ""), "JSON object");
  expect_refused(file_with(std::string(200, '[') + std::string(200, ']'), ""), "nests deeper");
  expect_refused(file_with(R"({"a": 5})", ""), "tensor 'a'");
  expect_refused(file_with(R"({"__metadata__": {"k": 1}})", ""), "__metadata__");
}

// Other safetensors dtypes pass the header (a model loader skips such buffers) but are never
// loaded; a name that is no safetensors dtype fails the header.
TEST(Safetensors, UnsupportedDtypeIsRefused) {
  for (const auto& [dtype, bytes] : std::vector<std::pair<std::string, std::size_t>>{
           {"F64", 16}, {"I64", 16}, {"U8", 2}, {"BOOL", 2}}) {
    const std::string file = file_with(R"({"w":{"dtype":")" + dtype + R"(","shape":[2],)" +
                                           R"("data_offsets":[0,)" + std::to_string(bytes) + "]}}",
                                       std::string(bytes, '\0'));
    expect_refused(file, "tensor 'w': dtype \"" + dtype + "\" is not supported (F32, F16 or BF16)");
    const poslab::SafetensorsHeader header =
        poslab::parse_safetensors_header(file, file.size(), "skip.safetensors");
    ASSERT_EQ(header.entries.size(), 1u);
    EXPECT_FALSE(header.entries[0].loadable);
    EXPECT_EQ(header.entries[0].dtype_text, dtype);
  }
  expect_refused(
      file_with(R"({"w":{"dtype":"F8","shape":[2],"data_offsets":[0,2]}})", std::string(2, '\0')),
      "tensor 'w': dtype \"F8\" is not a safetensors dtype");
  // The byte count follows the dtype's width.
  expect_refused(
      file_with(R"({"w":{"dtype":"BOOL","shape":[3],"data_offsets":[0,4]}})", std::string(4, '\0')),
      "shape (3,) of BOOL needs 3 bytes");
}

TEST(Safetensors, ShapeThatDisagreesWithOffsetsIsRefused) {
  expect_refused(
      file_with(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", std::string(8, '\0')),
      "tensor 'w': shape (3,) of F32 needs 12 bytes");
  // BF16's two bytes an element: an F32-sized buffer (a float checkpoint relabelled) and an
  // odd one are both refused.
  expect_refused(
      file_with(R"({"w":{"dtype":"BF16","shape":[3],"data_offsets":[0,12]}})", std::string(12, 0)),
      "tensor 'w': shape (3,) of BF16 needs 6 bytes, data_offsets span 12");
  expect_refused(
      file_with(R"({"w":{"dtype":"BF16","shape":[3],"data_offsets":[0,5]}})", std::string(5, 0)),
      "tensor 'w': shape (3,) of BF16 needs 6 bytes, data_offsets span 5");
  expect_refused(
      file_with(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", std::string(4, 0)),
      "non-negative integer");
  expect_refused(
      file_with(R"({"w":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", std::string(4, 0)),
      "non-negative integer");
  expect_refused(file_with(R"({"w":{"dtype":"F32","shape":[1]}})", std::string(4, 0)),
                 "missing \"data_offsets\"");
}

TEST(Safetensors, OverlappingOrOutOfRangeOffsetsAreRefused) {
  const std::string buffer(8, '\0');
  expect_refused(file_with(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                           R"("b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}})",
                           buffer),
                 "overlaps");
  expect_refused(file_with(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})", buffer),
                 "run past the 8-byte data buffer");
  expect_refused(file_with(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", buffer),
                 "end is before begin");
  expect_refused(file_with(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", buffer),
                 "[begin, end]");
  expect_refused(
      file_with(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,18446744073709551615]}})",
                buffer),
      "run past");
}

TEST(Safetensors, HugeDeclaredSizesAreRefusedBeforeAllocating) {
  expect_refused(file_with(R"({"w":{"dtype":"F32","shape":[1099511627776,1099511627776],)"
                           R"("data_offsets":[0,4]}})",
                           std::string(4, 0)),
                 "tensor 'w'");
  expect_refused(file_with(R"({"w":{"dtype":"F32","shape":[65536,65536],"data_offsets":[0,4]}})",
                           std::string(4, 0)),
                 "limit");
  // BF16 counts against the same element cap (held as F32, it takes F32's bytes).
  expect_refused(file_with(R"({"w":{"dtype":"BF16","shape":[65536,65536],"data_offsets":[0,4]}})",
                           std::string(4, 0)),
                 "limit");
  expect_refused(
      file_with(R"({"w":{"dtype":"F32","shape":[4294967296,0],"data_offsets":[0,0]}})", ""),
      "over the element limit");
}

TEST(Safetensors, WriterRefusesReservedAndRepeatedNames) {
  const TensorF a = ref::random_tensor({2}, 6);
  EXPECT_THROW(poslab::encode_safetensors({{"__metadata__", &a}}), Error);
  EXPECT_THROW(poslab::encode_safetensors({{"a", &a}, {"a", &a}}), Error);
}

}  // namespace
