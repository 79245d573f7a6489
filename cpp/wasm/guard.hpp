// The exception boundary between the core and JavaScript. With Emscripten's JS-based
// exceptions a C++ exception reaches JS as a bare pointer number (and leaks its object), so
// every bound function runs its body through `guarded`: a result comes back as is, a thrown
// error as { error: message, field? } (field: the option or argument the core's Error names,
// absent when it names none), which the JS wrapper (web/src/core/raw.js) rethrows as a
// PosLabError with that field. The module stays usable after an error.
#pragma once

#include <emscripten/val.h>

#include <exception>
#include <new>
#include <string>

#include "poslab/base/errors.hpp"

namespace poslab::wasm {

inline emscripten::val error_result(const std::string& message, const std::string& field = {}) {
  emscripten::val out = emscripten::val::object();
  out.set("error", message);
  if (!field.empty()) out.set("field", field);
  return out;
}

template <class Body>
emscripten::val guarded(Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return error_result(
        "out of memory: the WebAssembly heap could not grow (it is capped at 2 GiB); try "
        "smaller sizes");
  } catch (const Error& e) {
    return error_result(e.what(), e.field());
  } catch (const std::exception& e) {
    return error_result(e.what());
  } catch (...) {
    return error_result("unknown error in the PosLab core");
  }
}

}  // namespace poslab::wasm
