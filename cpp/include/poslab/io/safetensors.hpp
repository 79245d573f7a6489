// .safetensors files (Hugging Face's weight format): an 8-byte little-endian header length N,
// N bytes of JSON {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__"?},
// then the byte buffer the offsets point into. Read as float32 (F16 and BF16 converted
// exactly).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "poslab/base/tensor.hpp"
#include "poslab/io/stored_tensor.hpp"

namespace poslab {

// Headers over this are refused before they are read (the safetensors reference's own cap).
inline constexpr std::size_t kMaxSafetensorsHeader = 100'000'000;

// One tensor of a header: where its bytes lie in the data buffer (which starts right after
// the header, at file offset data_start).
struct SafetensorsEntry {
  std::string name;
  // F32, F16 and BF16 load (BF16 widened to F32: stored_tensor.hpp). Other safetensors dtypes
  // (BOOL, U8, I8, I16, U16, I32, U32, I64, U64, F64) are accepted in a header only so that a
  // model loader can skip the buffers checkpoints carry (GPT-NeoX's BOOL attention.bias);
  // `loadable` is false for them and every reader refuses to load one, naming it.
  StoredDType dtype = StoredDType::kF32;  // as stored in the file
  Shape shape;
  std::uint64_t begin = 0, end = 0;  // [begin, end) relative to the data buffer
  bool loadable = true;
  std::string dtype_text = "F32";  // as the header spells it
};

// "dtype \"BOOL\" is not supported (F32, F16 or BF16)": what a reader says of an entry it
// cannot load.
std::string unsupported_dtype(const SafetensorsEntry& entry);

struct SafetensorsHeader {
  std::vector<SafetensorsEntry> entries;        // in the header's key order
  std::map<std::string, std::string> metadata;  // "__metadata__" (string → string)
  std::uint64_t data_start = 0;                 // 8 + N
  std::uint64_t file_size = 0;
  // Empty when the tensors tile the data buffer exactly; else what is not covered (bytes after
  // the last tensor, or a gap), which a reader refuses once it has checked the names it needs.
  std::string untiled;
};

// For readers that receive a file in pieces (a browser File read in chunks): the header
// length N the first 8 bytes declare, checked against kMaxSafetensorsHeader and file_size.
std::uint64_t safetensors_header_length(const std::string& first_8_bytes, std::uint64_t file_size,
                                        const std::string& name);
// Parses and checks the header from the file's first 8 + N bytes (`prefix`, at least that
// long) of a file of `file_size` bytes: every entry's dtype, shape and offsets, as
// parse_safetensors.
SafetensorsHeader parse_safetensors_header(const std::string& prefix, std::uint64_t file_size,
                                           const std::string& name);

struct SafetensorsFile {
  std::map<std::string, TensorF> tensors;       // every tensor, as float32
  std::map<std::string, StoredDType> dtypes;    // each tensor's dtype on disk
  std::map<std::string, std::string> metadata;  // "__metadata__" (string → string)
};

// Parses whole-file bytes. `name` labels errors ("model.safetensors: tensor 'wte.weight': ...").
// Everything in the header (dtypes, shapes against the element cap, offsets in range, not
// overlapping, sized numel·itemsize) is checked before any tensor is allocated.
SafetensorsFile parse_safetensors(const std::string& bytes, const std::string& name);

// Reads `path` tensor by tensor (the file is never held whole in memory), same checks.
SafetensorsFile read_safetensors(const std::string& path);

// The bytes of a .safetensors file holding `tensors` (in the order given) stored as `dtype`;
// F16 and BF16 round to nearest even (values beyond their range become ±infinity).
std::string encode_safetensors(const std::vector<std::pair<std::string, const TensorF*>>& tensors,
                               StoredDType dtype = StoredDType::kF32,
                               const std::map<std::string, std::string>& metadata = {});
// The same from stored tensors, each written in its own dtype (F32 or F16).
std::string encode_safetensors(
    const std::vector<std::pair<std::string, const StoredTensor*>>& tensors,
    const std::map<std::string, std::string>& metadata = {});

}  // namespace poslab
