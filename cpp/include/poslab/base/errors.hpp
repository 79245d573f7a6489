// The one error type of the core: every bad input is reported by throwing it, with a
// message a user can act on and, where one option or argument is at fault, its name (the JS
// API's camelCase option name: "lowFreqFactor", "window", "q"), so a front-end can put the
// message beside that control without parsing the sentence. Front-ends (CLI, WASM, CUDA
// bench) turn it into their own form; the CLI prints only the message.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace poslab {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, std::string field = {})
      : std::runtime_error(message), field_(std::move(field)) {}
  explicit Error(const char* message) : std::runtime_error(message) {}

  // The option or argument the error is about ("" when it is about no single one).
  const std::string& field() const noexcept { return field_; }

 private:
  std::string field_;
};

// Throws Error(message) unless `ok`. The message is built only on failure.
inline void require(bool ok, const char* message) {
  if (!ok) throw Error(message);
}
inline void require(bool ok, const std::string& message) {
  if (!ok) throw Error(message);
}
// The same, naming the option or argument at fault.
inline void require(bool ok, const char* field, const std::string& message) {
  if (!ok) throw Error(message, field);
}

// Runs body(); an Error it throws without a field leaves with `field`. For checks shared by
// several options (positive_size, parse_mask) whose caller knows which option it checked.
template <class Body>
decltype(auto) with_field(const char* field, Body&& body) {
  try {
    return body();
  } catch (const Error& e) {
    if (!e.field().empty()) throw;
    throw Error(e.what(), field);
  }
}

}  // namespace poslab
