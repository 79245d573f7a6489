// NumPy .npy reading and encoding (format spec: numpy/lib/format.py).
#include "poslab/io/npy.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "poslab/io/file_kind.hpp"

// The element loops below copy bytes straight into host integers and floats, which is what
// '<' means only on a little-endian host. Every target of PosLab (x86-64, Arm64, wasm32) is.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#error "npy.cpp assumes a little-endian host"
#endif

namespace poslab {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;
// numpy caps ndim at 64 (NPY_MAXDIMS in numpy 2); more is certainly a corrupt header.
constexpr std::size_t kMaxDims = 64;
// numpy itself refuses headers over 10 000 bytes unless told otherwise; anything near this
// is a corrupt length field, and refusing it bounds what read_npy buffers before the shape.
constexpr std::size_t kMaxHeaderBytes = std::size_t{1} << 20;

enum class DType { kF4, kF8, kI4, kI8, kU1, kB1 };

std::size_t item_size(DType t) {
  switch (t) {
    case DType::kF4:
    case DType::kI4:
      return 4;
    case DType::kF8:
    case DType::kI8:
      return 8;
    case DType::kU1:
    case DType::kB1:
      return 1;
  }
  return 0;
}

struct Header {
  DType dtype = DType::kF4;
  Shape shape;
  std::size_t data_offset = 0;
};

// The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// numpy reads it with ast.literal_eval; this accepts the subset numpy writes (and any
// spacing or quoting a hand-written file might use) and nothing else.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& name) : text_(text), name_(name) {}

  Header parse() {
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<Shape> shape;

    skip_space();
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = parse_string();
      skip_space();
      expect(':');
      skip_space();
      if (key == "descr" && !descr) {
        descr = parse_string();
      } else if (key == "fortran_order" && !fortran_order) {
        fortran_order = parse_bool();
      } else if (key == "shape" && !shape) {
        shape = parse_shape();
      } else if (key == "descr" || key == "fortran_order" || key == "shape") {
        fail("key '" + key + "' appears twice");
      } else {
        fail("unexpected key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail("expected ',' or '}'");
    }
    ++pos_;  // '}'
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the closing '}'");
    if (!descr) fail("no 'descr' key");
    if (!fortran_order) fail("no 'fortran_order' key");
    if (!shape) fail("no 'shape' key");

    if (*fortran_order) {
      throw Error(name_ +
                  ": Fortran-ordered arrays are not supported (save a C-ordered copy, e.g. "
                  "np.save(path, np.ascontiguousarray(a)))");
    }
    Header header;
    header.dtype = parse_dtype(*descr);
    header.shape = std::move(*shape);
    return header;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(name_ + ": malformed header: " + what + " at offset " + std::to_string(pos_) +
                " of \"" + printable(text_) + "\"");
  }

  // Header text for a message: control bytes escaped, cut short so a garbage header
  // cannot flood the terminal.
  static std::string printable(const std::string& s) {
    std::string out;
    for (char c : s.substr(0, 120)) {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u < 0x7f) {
        out += c;
      } else {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", u);
        out += hex;
      }
    }
    if (s.size() > 120) out += "...";
    return out;
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  std::string parse_string() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string");
    const std::size_t start = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      // No key or dtype numpy writes needs an escape; refusing them keeps this small.
      if (text_[pos_] == '\\' || text_[pos_] == '\n') fail("unsupported character in a string");
      ++pos_;
    }
    if (pos_ == text_.size()) fail("unterminated string");
    return text_.substr(start, pos_++ - start);
  }

  bool parse_bool() {
    if (text_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (text_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    fail("expected True or False");
  }

  // "()", "(3,)", "(3, 4)", "(3, 4,)". "(3)" is an int in Python, not a tuple.
  Shape parse_shape() {
    expect('(');
    Shape shape;
    bool trailing_comma = false;
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (peek() == '-') fail("negative dimension in 'shape'");
      shape.push_back(parse_dim());
      if (shape.size() > kMaxDims) fail("more than " + std::to_string(kMaxDims) + " dimensions");
      skip_space();
      trailing_comma = peek() == ',';
      if (trailing_comma) {
        ++pos_;
      } else if (peek() != ')') {
        fail("expected ',' or ')' in 'shape'");
      }
    }
    if (shape.size() == 1 && !trailing_comma) fail("'shape' is not a tuple");
    ++pos_;  // ')'
    return shape;
  }

  std::size_t parse_dim() {
    if (peek() < '0' || peek() > '9') fail("expected a non-negative integer in 'shape'");
    // Any dimension past the element cap is refused later by checked_numel; stopping the
    // accumulation there keeps it from overflowing.
    constexpr std::size_t kCap = std::numeric_limits<std::size_t>::max() / 10 - 10;
    std::size_t value = 0;
    while (peek() >= '0' && peek() <= '9') {
      if (value < kCap) value = value * 10 + std::size_t(peek() - '0');
      ++pos_;
    }
    return value;
  }

  DType parse_dtype(const std::string& descr) const {
    const std::string supported = "(supported: <f4, <f8, <i4, <i8, |u1, |b1)";
    if (descr.size() != 3) {
      throw Error(name_ + ": unsupported dtype '" + descr + "' " + supported);
    }
    const char order = descr[0];
    const std::string kind = descr.substr(1);
    std::optional<DType> dtype;
    if (kind == "f4") dtype = DType::kF4;
    if (kind == "f8") dtype = DType::kF8;
    if (kind == "i4") dtype = DType::kI4;
    if (kind == "i8") dtype = DType::kI8;
    if (kind == "u1") dtype = DType::kU1;
    if (kind == "b1") dtype = DType::kB1;
    if (!dtype || (order != '<' && order != '>' && order != '=' && order != '|')) {
      throw Error(name_ + ": unsupported dtype '" + descr + "' " + supported);
    }
    // Byte order means nothing for one-byte items, so numpy's '|' and any other mark are
    // fine there. For wider items '|' ("not applicable") is a contradiction.
    if (item_size(*dtype) > 1) {
      if (order == '>') {
        throw Error(name_ + ": big-endian data ('" + descr +
                    "') is not supported; convert with a.astype('<" + kind + "')");
      }
      if (order == '|') {
        throw Error(name_ + ": dtype '" + descr + "' gives no byte order " + supported);
      }
    }
    return *dtype;
  }

  const std::string& text_;
  const std::string& name_;
  std::size_t pos_ = 0;
};

std::uint32_t read_le(const std::string& bytes, std::size_t at, std::size_t width) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    value |= std::uint32_t(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  }
  return value;
}

Header parse_header(const std::string& bytes, const std::string& name) {
  if (bytes.size() < kMagicSize || bytes.compare(0, kMagicSize, kMagic, kMagicSize) != 0) {
    throw Error(name + ": not a .npy file (it does not start with \\x93NUMPY)");
  }
  if (bytes.size() < kMagicSize + 2) throw Error(name + ": truncated: no format version");
  const int major = static_cast<unsigned char>(bytes[kMagicSize]);
  const int minor = static_cast<unsigned char>(bytes[kMagicSize + 1]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    throw Error(name + ": unsupported .npy format version " + std::to_string(major) + "." +
                std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  // Version 1.0 stores the header length in 2 bytes, 2.0 and 3.0 in 4.
  const std::size_t length_width = major == 1 ? 2 : 4;
  const std::size_t header_start = kMagicSize + 2 + length_width;
  if (bytes.size() < header_start) throw Error(name + ": truncated: no header length");
  const std::size_t header_length = read_le(bytes, kMagicSize + 2, length_width);
  if (header_length > kMaxHeaderBytes) {
    throw Error(name + ": header length " + std::to_string(header_length) +
                " is implausible (limit " + std::to_string(kMaxHeaderBytes) + " bytes)");
  }
  if (header_length > bytes.size() - header_start) {
    throw Error(name + ": truncated: header says " + std::to_string(header_length) +
                " bytes of header, file has " + std::to_string(bytes.size() - header_start));
  }
  const std::string text = bytes.substr(header_start, header_length);
  Header header = HeaderParser(text, name).parse();
  header.data_offset = header_start + header_length;
  return header;
}

// True once parse_header can judge `bytes`: the preamble and the header it announces are
// both in, or the announced length is already past the limit.
bool header_complete(const std::string& bytes) {
  const std::size_t longest_preamble = kMagicSize + 2 + 4;
  if (bytes.size() < longest_preamble) return false;
  const std::size_t width = bytes[kMagicSize] == 1 ? 2 : 4;
  const std::size_t length = read_le(bytes, kMagicSize + 2, width);
  return length > kMaxHeaderBytes || bytes.size() >= kMagicSize + 2 + width + length;
}

template <class Source>
void convert(const char* src, std::size_t n, float* dst) {
  for (std::size_t i = 0; i < n; ++i) {
    Source value;
    std::memcpy(&value, src + i * sizeof(Source), sizeof(Source));
    dst[i] = static_cast<float>(value);
  }
}

// float64 → float32, refusing a finite value float32 cannot hold (1e300 would silently become
// inf). NaN and ±inf pass as they are: whether they are allowed is the consumer's rule.
void convert_f8(const char* src, const Shape& shape, std::size_t n, float* dst,
                const std::string& name) {
  constexpr double kFloatMax = std::numeric_limits<float>::max();
  for (std::size_t i = 0; i < n; ++i) {
    double value;
    std::memcpy(&value, src + i * sizeof(double), sizeof(double));
    if (std::isfinite(value) && std::fabs(value) > kFloatMax) {
      char shown[32];
      std::snprintf(shown, sizeof shown, "%.17g", value);
      throw Error(name + index_string(shape, i) + " is " + shown +
                  ", which overflows float32 (largest finite value 3.4028235e+38)");
    }
    dst[i] = static_cast<float>(value);
  }
}

template <class T>
std::string encode(const Tensor<T>& tensor, const char* descr) {
  require(
      tensor.data.size() == checked_numel(tensor.shape, "tensor"),
      "cannot encode a tensor whose data does not match its shape " + shape_string(tensor.shape));
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < tensor.shape.size(); ++i) {
    dict += (i ? ", " : "") + std::to_string(tensor.shape[i]);
  }
  dict += tensor.shape.size() == 1 ? ",), }" : "), }";

  // numpy pads the header with spaces and a final '\n' so the data starts 64-byte aligned;
  // a header too long for 1.0's 2-byte length needs version 2.0.
  std::size_t prefix = kMagicSize + 2 + 2;
  std::size_t padded = (prefix + dict.size() + 1 + 63) / 64 * 64 - prefix;
  const bool v2 = padded > 0xffff;
  if (v2) {
    prefix = kMagicSize + 2 + 4;
    padded = (prefix + dict.size() + 1 + 63) / 64 * 64 - prefix;
  }
  dict.resize(padded - 1, ' ');
  dict += '\n';

  std::string out(kMagic, kMagicSize);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  for (std::size_t i = 0; i < (v2 ? 4u : 2u); ++i)
    out += static_cast<char>((padded >> (8 * i)) & 0xff);
  out += dict;
  const std::size_t data_at = out.size();
  out.resize(data_at + tensor.data.size() * sizeof(T));
  if (!tensor.data.empty())
    std::memcpy(&out[data_at], tensor.data.data(), tensor.data.size() * sizeof(T));
  return out;
}

[[noreturn]] void throw_errno(const std::string& path, const std::string& action, int error) {
  throw Error(path + ": " + action + ": " + std::strerror(error));
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

TensorF parse_npy(const std::string& bytes, const std::string& name) {
  const Header header = parse_header(bytes, name);
  const std::size_t n = checked_numel(header.shape, name + ": array");
  // n <= kMaxElements, so this product cannot overflow.
  const std::size_t data_bytes = n * item_size(header.dtype);
  const std::size_t available = bytes.size() - header.data_offset;
  if (available < data_bytes) {
    throw Error(name + ": truncated: header says " + std::to_string(data_bytes) +
                " bytes of data, file has " + std::to_string(available));
  }
  if (available > data_bytes) {
    throw Error(name + ": " + std::to_string(available - data_bytes) +
                " unexpected bytes after the data: shape " + shape_string(header.shape) +
                " needs " + std::to_string(data_bytes) + " bytes, file has " +
                std::to_string(available));
  }

  TensorF out(header.shape, name);
  const char* src = bytes.data() + header.data_offset;
  switch (header.dtype) {
    case DType::kF4:
      convert<float>(src, n, out.ptr());
      break;
    case DType::kF8:
      convert_f8(src, header.shape, n, out.ptr(), name);
      break;
    case DType::kI4:
      convert<std::int32_t>(src, n, out.ptr());
      break;
    case DType::kI8:
      convert<std::int64_t>(src, n, out.ptr());
      break;
    case DType::kU1:
      convert<std::uint8_t>(src, n, out.ptr());
      break;
    case DType::kB1:
      // numpy's bool is one byte; treat any nonzero byte as True, as numpy's cast does.
      for (std::size_t i = 0; i < n; ++i) out.data[i] = src[i] != 0 ? 1.0f : 0.0f;
      break;
  }
  return out;
}

std::string encode_npy(const TensorF& tensor) { return encode(tensor, "<f4"); }
std::string encode_npy(const TensorI& tensor) { return encode(tensor, "<i4"); }

TensorF read_npy(const std::string& path) {
  require_regular_file(path);
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) throw_errno(path, "cannot open", errno);
  // Read in chunks rather than trusting the file size (it may change while read); once the
  // header is in, its shape bounds what may follow, so an oversized file stops right there.
  std::string bytes;
  Header header;
  std::size_t expected = 0;  // size of the whole file, once the header is known
  char chunk[1 << 16];
  while (true) {
    const std::size_t got = std::fread(chunk, 1, sizeof chunk, file.get());
    bytes.append(chunk, got);
    if (got < sizeof chunk) break;
    if (expected == 0 && header_complete(bytes)) {
      header = parse_header(bytes, path);
      expected = header.data_offset +
                 checked_numel(header.shape, path + ": array") * item_size(header.dtype);
    }
    if (expected != 0 && bytes.size() > expected) {
      throw Error(path + ": unexpected bytes after the data: shape " + shape_string(header.shape) +
                  " needs " + std::to_string(expected - header.data_offset) +
                  " bytes, file has more");
    }
  }
  if (std::ferror(file.get())) throw_errno(path, "cannot read", errno);
  return parse_npy(bytes, path);
}

}  // namespace poslab
