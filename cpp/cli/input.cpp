// Input arrays of the CLI, checked as the core checks them.
#include "input.hpp"

#include "poslab/io/npy.hpp"

namespace poslab::cli {

TensorF read_input(const std::string& path, NonFinite rule) {
  TensorF tensor = read_npy(path);
  require_finite(tensor, path, rule);
  return tensor;
}

}  // namespace poslab::cli
