// A JS object from a list of name/value pairs in one expression, in place of a run of
// out.set("name", value) calls (js_set adds such a list to an object already begun):
//   return js_object({{"name", e.name}, {"begin", double(e.begin)}, {"shape", shape}});
// A value is anything embind's val is built from (numbers, strings, bools, a val, a bound
// class); sizes go in as double(x), since JS numbers are doubles. The keys keep the order
// given. The core's, the language models' and the trainer's bindings build their objects with
// it.
#pragma once

#include <emscripten/val.h>

#include <initializer_list>
#include <type_traits>
#include <utility>

namespace poslab::wasm {

// One name/value pair of js_object's list.
struct JsField {
  template <class T>
  JsField(const char* field_name, T&& field_value)
      : name(field_name), value(as_val(std::forward<T>(field_value))) {}

  const char* name;
  emscripten::val value;

 private:
  template <class T>
  static emscripten::val as_val(T&& v) {
    // A val is copied as a handle; val's converting constructor would wrap it in another.
    if constexpr (std::is_same_v<std::decay_t<T>, emscripten::val>) {
      emscripten::val handle = v;
      return handle;
    } else {
      return emscripten::val(std::forward<T>(v));
    }
  }
};

// The fields added, in order, to an object a shared helper began (dims_js, forward_result_js).
inline void js_set(emscripten::val& out, std::initializer_list<JsField> fields) {
  for (const JsField& f : fields) out.set(f.name, f.value);
}

inline emscripten::val js_object(std::initializer_list<JsField> fields) {
  emscripten::val out = emscripten::val::object();
  js_set(out, fields);
  return out;
}

}  // namespace poslab::wasm
