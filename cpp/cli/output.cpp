// Encoders for the CLI's output formats and the all-or-nothing write of a command's files.
#include "output.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>

#include "output_files.hpp"
#include "poslab/io/npy.hpp"

namespace poslab::cli {
namespace {

// Text is 10-20 bytes an element; past this a CSV or JSON file would run past 300 MB,
// which is a job for .npy.
constexpr std::size_t kMaxTextElements = std::size_t{1} << 24;

std::string lowercase_extension(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string ext = path.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

void append_value(std::string& out, float value, bool json) {
  if (json && !std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[32];
  const int n = std::snprintf(buffer, sizeof buffer, "%.9g", static_cast<double>(value));
  out.append(buffer, static_cast<std::size_t>(n));
}

void append_value(std::string& out, std::int32_t value, bool /*json*/) {
  out += std::to_string(value);
}

template <class T>
void check_text_size(const Tensor<T>& tensor, const std::string& path) {
  require(tensor.size() <= kMaxTextElements,
          path + ": " + shape_string(tensor.shape) + " has " + std::to_string(tensor.size()) +
              " elements, too many for a text file (limit " + std::to_string(kMaxTextElements) +
              "); write .npy instead");
}

template <class T>
std::string encode_csv(const Tensor<T>& tensor) {
  // The last axis is a row; a 0-d tensor is a single value on one line.
  const std::size_t width = tensor.ndim() == 0 ? 1 : tensor.shape.back();
  std::string out;
  if (width == 0) return out;
  for (std::size_t i = 0; i < tensor.size(); ++i) {
    append_value(out, tensor.data[i], /*json=*/false);
    out += (i + 1) % width == 0 ? '\n' : ',';
  }
  return out;
}

// Writes the sub-array of `axis` and beyond that starts at element `at` as nested lists.
template <class T>
void append_json_array(std::string& out, const Tensor<T>& tensor, std::size_t axis,
                       std::size_t& at) {
  if (axis == tensor.ndim()) {
    append_value(out, tensor.data[at++], /*json=*/true);
    return;
  }
  out += '[';
  for (std::size_t i = 0; i < tensor.shape[axis]; ++i) {
    if (i) out += ',';
    append_json_array(out, tensor, axis + 1, at);
  }
  out += ']';
}

template <class T>
std::string encode_json(const Tensor<T>& tensor, const char* dtype) {
  std::string out = "{\"shape\":[";
  for (std::size_t i = 0; i < tensor.ndim(); ++i) {
    out += (i ? "," : "") + std::to_string(tensor.shape[i]);
  }
  out += std::string("],\"dtype\":\"") + dtype + "\",\"data\":";
  std::size_t at = 0;
  append_json_array(out, tensor, 0, at);
  out += "}\n";
  return out;
}

template <class T>
std::string encode(const std::string& path, const Tensor<T>& tensor, const char* dtype) {
  switch (output_format(path)) {
    case Format::kNpy:
      return encode_npy(tensor);
    case Format::kCsv:
      check_text_size(tensor, path);
      return encode_csv(tensor);
    case Format::kJson:
      check_text_size(tensor, path);
      return encode_json(tensor, dtype);
  }
  return {};
}

}  // namespace

Format output_format(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  if (ext == ".npy") return Format::kNpy;
  if (ext == ".csv") return Format::kCsv;
  if (ext == ".json") return Format::kJson;
  throw Error(path + ": unknown output format " +
              (ext.empty() ? "(no extension)" : "'" + ext + "'") + "; use .npy, .csv or .json");
}

void check_output_path(const std::string& path) {
  output_format(path);
  check_output_target(path);
}

std::string encode_output(const std::string& path, const TensorF& tensor) {
  return encode(path, tensor, "float32");
}

std::string encode_output(const std::string& path, const TensorI& tensor) {
  return encode(path, tensor, "int32");
}

void write_outputs(std::vector<std::pair<std::string, std::string>> files) {
  OutputFiles out;
  for (auto& [path, bytes] : files) out.add(std::move(path), std::move(bytes));
  out.commit();
}

void write_output(const std::string& path, const TensorF& tensor) {
  OutputFiles out;
  out.add(path, encode_output(path, tensor));
  out.commit();
}

void write_output(const std::string& path, const TensorI& tensor) {
  OutputFiles out;
  out.add(path, encode_output(path, tensor));
  out.commit();
}

}  // namespace poslab::cli
