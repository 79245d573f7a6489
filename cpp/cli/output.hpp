// Writing results: the format follows the file's extension (.npy, .csv, .json), every file
// is encoded in full before anything touches the disk, then written atomically.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "poslab/base/tensor.hpp"

namespace poslab::cli {

enum class Format { kNpy, kCsv, kJson };

// The format `path` names by its extension; Error for any other extension.
Format output_format(const std::string& path);

// Fails early, before any work, when `path` cannot be an output: unknown extension, a
// directory that does not exist, or a path that is itself a directory.
void check_output_path(const std::string& path);

// The bytes of `tensor` in the format of `path`.
//   .csv:  one line per row of the last axis (leading axes flattened; a 1-D or 0-d tensor is
//          one line); floats as %.9g, which round-trips float32.
//   .json: {"shape": [...], "dtype": "float32"|"int32", "data": nested lists}; non-finite
//          floats, which JSON cannot spell, become null.
std::string encode_output(const std::string& path, const TensorF& tensor);
std::string encode_output(const std::string& path, const TensorI& tensor);

// Writes every (path, bytes) pair, all or nothing (OutputFiles): on any failure every
// existing file is left as it was.
void write_outputs(std::vector<std::pair<std::string, std::string>> files);

// The bytes are encoded straight into the staged file list, never copied: an output at the
// element cap is 1 GiB of them.
void write_output(const std::string& path, const TensorF& tensor);
void write_output(const std::string& path, const TensorI& tensor);

}  // namespace poslab::cli
