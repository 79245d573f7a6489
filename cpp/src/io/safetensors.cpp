// .safetensors reading and writing (format: github.com/huggingface/safetensors, "Format").
// The header is validated in full — lengths, JSON, dtypes, shapes against the element cap,
// offsets — before a single tensor is allocated, so a hostile file costs at most its header.
#include "poslab/io/safetensors.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "poslab/io/file_kind.hpp"

// Tensor bytes are copied straight into host floats: little-endian hosts only (x86-64, Arm64,
// wasm32), as in npy.cpp.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#error "safetensors.cpp assumes a little-endian host"
#endif

namespace poslab {

std::string unsupported_dtype(const SafetensorsEntry& entry) {
  return "dtype \"" + entry.dtype_text + "\" is not supported (F32, F16 or BF16)";
}

namespace {

// The deepest a valid header nests: {name: {"shape": [ ]}}. Checked by a scan before
// nlohmann parses, so a header of nested brackets cannot exhaust memory.
constexpr int kMaxJsonDepth = 3;

// Random access to the file's bytes: `read(offset, n, dst)` fills dst or throws.
struct Source {
  std::string name;
  std::uint64_t size = 0;
  std::function<void(std::uint64_t, std::size_t, char*)> read;
};

using Entry = SafetensorsEntry;
using Header = SafetensorsHeader;

[[noreturn]] void fail(const Source& src, const std::string& message) {
  throw Error(src.name + ": " + message);
}

std::string tensor_label(const std::string& name) { return "tensor '" + name + "'"; }

void check_depth(const Source& src, const std::string& text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) {
        fail(src, "header nests deeper than a safetensors header can (" +
                      std::to_string(kMaxJsonDepth) + " levels)");
      }
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
}

// A JSON number that is a non-negative integer, as uint64 (nlohmann stores those unsigned).
std::uint64_t unsigned_field(const Source& src, const nlohmann::json& value,
                             const std::string& what) {
  if (!value.is_number_unsigned()) {
    fail(src, what + " must be a non-negative integer, got " + value.dump());
  }
  return value.get<std::uint64_t>();
}

// Bytes per element of the safetensors dtypes PosLab does not load (0 for an unknown name).
std::uint64_t skip_only_item_size(const std::string& dtype) {
  static const std::map<std::string, std::uint64_t> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"I16", 2}, {"U16", 2},
      {"I32", 4},  {"U32", 4}, {"I64", 8}, {"U64", 8}, {"F64", 8}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

Entry parse_entry(const Source& src, const std::string& name, const nlohmann::json& spec,
                  std::uint64_t buffer_size) {
  const std::string label = tensor_label(name);
  if (!spec.is_object()) fail(src, label + ": expected an object with dtype, shape, data_offsets");
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!spec.contains(key)) fail(src, label + ": missing \"" + key + "\"");
  }
  if (spec.size() != 3) fail(src, label + ": unexpected keys besides dtype, shape, data_offsets");

  Entry entry;
  entry.name = name;
  const nlohmann::json& dtype = spec["dtype"];
  if (!dtype.is_string()) fail(src, label + ": dtype must be a string");
  const std::string dtype_text = dtype.get<std::string>();
  entry.dtype_text = dtype_text;
  std::uint64_t item = 0;
  if (dtype_text == "F32") {
    entry.dtype = StoredDType::kF32;
  } else if (dtype_text == "F16") {
    entry.dtype = StoredDType::kF16;
  } else if (dtype_text == "BF16") {
    entry.dtype = StoredDType::kBF16;
  } else if (const std::uint64_t other = skip_only_item_size(dtype_text)) {
    entry.loadable = false;
    item = other;
  } else {
    fail(src, label + ": dtype " + dtype.dump() + " is not a safetensors dtype");
  }
  if (entry.loadable) item = item_size(entry.dtype);

  const nlohmann::json& shape = spec["shape"];
  if (!shape.is_array()) fail(src, label + ": shape must be an array");
  for (const nlohmann::json& dim : shape) {
    const std::uint64_t d = unsigned_field(src, dim, label + ": shape entry");
    // Bounded before narrowing to size_t (32 bits in wasm).
    if (d > kMaxWeightElements) {
      fail(src, label + ": dimension " + std::to_string(d) + " is over the element limit " +
                    std::to_string(kMaxWeightElements));
    }
    entry.shape.push_back(static_cast<std::size_t>(d));
  }
  // A weight's cap (held as stored); a reader into float32 tensors (read_safetensors) applies
  // kMaxElements when it allocates.
  const std::size_t numel = checked_numel(entry.shape, src.name + ": " + label, kMaxWeightElements);

  const nlohmann::json& offsets = spec["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) {
    fail(src, label + ": data_offsets must be [begin, end]");
  }
  entry.begin = unsigned_field(src, offsets[0], label + ": data_offsets begin");
  entry.end = unsigned_field(src, offsets[1], label + ": data_offsets end");
  if (entry.end < entry.begin) fail(src, label + ": data_offsets end is before begin");
  if (entry.end > buffer_size) {
    fail(src, label + ": data_offsets [" + std::to_string(entry.begin) + ", " +
                  std::to_string(entry.end) + ") run past the " + std::to_string(buffer_size) +
                  "-byte data buffer (truncated file?)");
  }
  const std::uint64_t expected = std::uint64_t(numel) * item;
  if (entry.end - entry.begin != expected) {
    fail(src, label + ": shape " + shape_string(entry.shape) + " of " + dtype_text + " needs " +
                  std::to_string(expected) + " bytes, data_offsets span " +
                  std::to_string(entry.end - entry.begin));
  }
  return entry;
}

// N from the first 8 bytes, checked against the cap and the file size.
std::uint64_t header_length(const Source& src) {
  if (src.size < 8) {
    fail(src, "file is " + std::to_string(src.size) +
                  " bytes, too short for the 8-byte header length (not a safetensors file?)");
  }
  unsigned char length_bytes[8];
  src.read(0, 8, reinterpret_cast<char*>(length_bytes));
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | length_bytes[i];
  if (length > kMaxSafetensorsHeader) {
    fail(src, "header length " + std::to_string(length) + " is over the limit of " +
                  std::to_string(kMaxSafetensorsHeader) + " bytes (not a safetensors file?)");
  }
  if (length > src.size - 8) {
    fail(src, "header length " + std::to_string(length) + " runs past the end of the " +
                  std::to_string(src.size) + "-byte file (truncated?)");
  }
  if (length < 2) fail(src, "header length " + std::to_string(length) + " is too short for JSON");
  return length;
}

Header parse_header(const Source& src) {
  const std::uint64_t length = header_length(src);
  std::string text(static_cast<std::size_t>(length), '\0');
  src.read(8, text.size(), &text[0]);
  check_depth(src, text);
  // nlohmann's parser would stop at a NUL and read only what came before it.
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
    fail(src, "header is not valid JSON: a NUL byte at offset " + std::to_string(8 + nul));
  }

  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail(src, std::string("header is not valid JSON: ") + e.what());
  }
  if (!json.is_object())
    fail(src, "header must be a JSON object, got " + json.dump().substr(0, 40));

  Header header;
  header.data_start = 8 + length;
  header.file_size = src.size;
  const std::uint64_t buffer_size = src.size - header.data_start;
  for (const auto& [key, value] : json.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) fail(src, "__metadata__ must be an object of strings");
      for (const auto& [meta_key, meta_value] : value.items()) {
        if (!meta_value.is_string()) fail(src, "__metadata__ '" + meta_key + "' is not a string");
        header.metadata[meta_key] = meta_value.get<std::string>();
      }
      continue;
    }
    header.entries.push_back(parse_entry(src, key, value, buffer_size));
  }

  // Non-overlapping: sorted by begin, each tensor starts at or after the previous one's end.
  std::vector<const Entry*> order;
  for (const Entry& e : header.entries) order.push_back(&e);
  std::sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  for (std::size_t i = 1; i < order.size(); ++i) {
    if (order[i]->begin < order[i - 1]->end) {
      fail(src, tensor_label(order[i]->name) + " overlaps " + tensor_label(order[i - 1]->name) +
                    " in the data buffer");
    }
  }
  // And whether they tile it, as the reference reader requires (safetensors' validate): a gap
  // or bytes after the last tensor are data the header does not describe (a corrupt or appended
  // file). Recorded, not thrown: a model's loader first names a tensor missing from the header.
  std::uint64_t covered = 0;
  for (const Entry* e : order) {
    if (e->begin > covered && header.untiled.empty()) {
      header.untiled = std::to_string(e->begin - covered) + " bytes of the data buffer before " +
                       tensor_label(e->name) + " belong to no tensor";
    }
    covered = e->end;
  }
  if (covered != buffer_size && header.untiled.empty()) {
    header.untiled = std::to_string(buffer_size - covered) +
                     " bytes after the last tensor's data belong to no tensor (trailing bytes?)";
  }
  return header;
}

SafetensorsFile read_all(const Source& src) {
  const Header header = parse_header(src);
  if (!header.untiled.empty()) fail(src, header.untiled);
  SafetensorsFile file;
  file.metadata = header.metadata;
  std::vector<std::uint16_t> halves;
  for (const Entry& e : header.entries) {
    if (!e.loadable) fail(src, tensor_label(e.name) + ": " + unsupported_dtype(e));
    TensorF tensor(e.shape, src.name + ": " + tensor_label(e.name));
    const std::uint64_t offset = header.data_start + e.begin;
    if (e.dtype == StoredDType::kF32) {
      if (tensor.size() > 0) {
        src.read(offset, tensor.size() * 4, reinterpret_cast<char*>(tensor.ptr()));
      }
    } else {
      halves.resize(tensor.size());
      if (tensor.size() > 0) {
        src.read(offset, tensor.size() * 2, reinterpret_cast<char*>(halves.data()));
      }
      float (*const widen)(std::uint16_t) =
          e.dtype == StoredDType::kBF16 ? bfloat16_to_float : half_to_float;
      for (std::size_t i = 0; i < halves.size(); ++i) tensor.data[i] = widen(halves[i]);
    }
    file.dtypes[e.name] = e.dtype;
    file.tensors[e.name] = std::move(tensor);
  }
  return file;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void throw_errno(const std::string& path, const std::string& action, int error) {
  throw Error(path + ": " + action + ": " + std::strerror(error));
}

// A source over the first bytes of a file of `file_size` bytes (the header checks keep every
// read of the header inside them).
Source prefix_source(const std::string& prefix, std::uint64_t file_size, const std::string& name) {
  Source src;
  src.name = name;
  src.size = file_size;
  src.read = [&prefix, name](std::uint64_t offset, std::size_t n, char* dst) {
    if (offset + n > prefix.size()) throw Error(name + ": the header is cut short");
    std::memcpy(dst, prefix.data() + offset, n);
  };
  return src;
}

}  // namespace

std::uint64_t safetensors_header_length(const std::string& first_8_bytes, std::uint64_t file_size,
                                        const std::string& name) {
  return header_length(prefix_source(first_8_bytes, file_size, name));
}

SafetensorsHeader parse_safetensors_header(const std::string& prefix, std::uint64_t file_size,
                                           const std::string& name) {
  return parse_header(prefix_source(prefix, file_size, name));
}

SafetensorsFile parse_safetensors(const std::string& bytes, const std::string& name) {
  Source src;
  src.name = name;
  src.size = bytes.size();
  src.read = [&bytes](std::uint64_t offset, std::size_t n, char* dst) {
    // The header checks keep every read inside `bytes`.
    std::memcpy(dst, bytes.data() + offset, n);
  };
  return read_all(src);
}

SafetensorsFile read_safetensors(const std::string& path) {
  require_regular_file(path);
  const Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw_errno(path, "cannot open", errno);
  struct stat info;
  if (::fstat(file.fd, &info) != 0) throw_errno(path, "cannot read", errno);
  if (!S_ISREG(info.st_mode)) throw Error(path + ": not a regular file");
  Source src;
  src.name = path;
  src.size = static_cast<std::uint64_t>(info.st_size);
  src.read = [&file, &path](std::uint64_t offset, std::size_t n, char* dst) {
    while (n > 0) {
      const ::ssize_t got = ::pread(file.fd, dst, n, static_cast<::off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw_errno(path, "cannot read", errno);
      if (got == 0) throw Error(path + ": file ended early (changed while reading?)");
      dst += got;
      offset += static_cast<std::uint64_t>(got);
      n -= static_cast<std::size_t>(got);
    }
  };
  return read_all(src);
}

namespace {

// One tensor's bytes as the file stores them.
struct EncodedTensor {
  std::string name;
  StoredDType dtype;
  Shape shape;
  const char* bytes;
  std::uint64_t size;  // in bytes
};

std::string encode_tensors(const std::vector<EncodedTensor>& tensors,
                           const std::map<std::string, std::string>& metadata) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::uint64_t offset = 0;
  for (const EncodedTensor& t : tensors) {
    require(t.name != "__metadata__" && !header.contains(t.name),
            "safetensors: tensor name '" + t.name + "' is reserved or repeated");
    header[t.name] = {{"dtype", dtype_name(t.dtype)},
                      {"shape", t.shape},
                      {"data_offsets", {offset, offset + t.size}}};
    offset += t.size;
  }
  std::string text = header.dump();
  // The reference writer pads with spaces so the buffer starts 8-byte aligned.
  text.resize((text.size() + 7) / 8 * 8, ' ');

  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>((std::uint64_t(text.size()) >> (8 * i)) & 0xff);
  out += text;
  out.reserve(out.size() + offset);
  for (const EncodedTensor& t : tensors) out.append(t.bytes, t.size);
  return out;
}

}  // namespace

std::string encode_safetensors(
    const std::vector<std::pair<std::string, const StoredTensor*>>& tensors,
    const std::map<std::string, std::string>& metadata) {
  std::vector<EncodedTensor> encoded;
  for (const auto& [name, tensor] : tensors) {
    require(tensor != nullptr, "safetensors: tensor '" + name + "' is null");
    encoded.push_back({name, tensor->dtype, tensor->shape, tensor->raw(), tensor->bytes()});
  }
  return encode_tensors(encoded, metadata);
}

std::string encode_safetensors(const std::vector<std::pair<std::string, const TensorF*>>& tensors,
                               StoredDType dtype,
                               const std::map<std::string, std::string>& metadata) {
  std::vector<StoredTensor> stored;
  stored.reserve(tensors.size());
  std::vector<EncodedTensor> encoded;
  for (const auto& [name, tensor] : tensors) {
    require(tensor != nullptr, "safetensors: tensor '" + name + "' is null");
    const StoredTensor& t = stored.emplace_back(StoredTensor::from(*tensor, dtype));
    encoded.push_back({name, dtype, t.shape, t.raw(), t.bytes()});
  }
  return encode_tensors(encoded, metadata);
}

}  // namespace poslab
