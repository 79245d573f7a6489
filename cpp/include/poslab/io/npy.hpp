// NumPy .npy files (format versions 1.0-3.0): the exchange format of the CLI and tests.
#pragma once

#include <string>

#include "poslab/base/tensor.hpp"

namespace poslab {

// Parses .npy bytes of dtype float32/float64, int32/int64, uint8 or bool (little-endian,
// C order) into float32. `name` labels errors ("q.npy: truncated data ..."). Throws Error
// for anything malformed, truncated, Fortran-ordered, big-endian or of another dtype.
TensorF parse_npy(const std::string& bytes, const std::string& name);

std::string encode_npy(const TensorF& tensor);  // '<f4'
std::string encode_npy(const TensorI& tensor);  // '<i4'

TensorF read_npy(const std::string& path);

}  // namespace poslab
