// .safetensors files (Hugging Face's weight format): an 8-byte little-endian header length N,
// N bytes of JSON {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__"?},
// then the byte buffer the offsets point into. Read as float32 (F16 converted exactly).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "poslab/tensor.hpp"

namespace poslab {

enum class StoredDType { kF32, kF16 };

// "F32" | "F16"
const char* dtype_name(StoredDType dtype);

// Headers over this are refused before they are read (the safetensors reference's own cap).
inline constexpr std::size_t kMaxSafetensorsHeader = 100'000'000;

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
// F16 rounds to nearest even (values beyond the half range become ±infinity).
std::string encode_safetensors(const std::vector<std::pair<std::string, const TensorF*>>& tensors,
                               StoredDType dtype = StoredDType::kF32,
                               const std::map<std::string, std::string>& metadata = {});

// Half-precision bits ↔ float: exact widening; narrowing rounds to nearest even.
float half_to_float(std::uint16_t bits);
std::uint16_t float_to_half(float value);

}  // namespace poslab
