// The one error type of the core: every bad input is reported by throwing it, with a
// message a user can act on. Front-ends (CLI, WASM, CUDA bench) turn it into their own form.
#pragma once

#include <stdexcept>
#include <string>

namespace poslab {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws Error(message) unless `ok`. The message is built only on failure.
inline void require(bool ok, const char* message) {
  if (!ok) throw Error(message);
}
inline void require(bool ok, const std::string& message) {
  if (!ok) throw Error(message);
}

}  // namespace poslab
