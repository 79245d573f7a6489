// One table of names per enum of the core, and the one parse/format pair over such a table:
// the CLI, the JS API (lab.names) and the page all read the same list, so a name added to a
// table is accepted, printed, listed in messages and offered in the UI at once.
#pragma once

#include <cstddef>
#include <string>

#include "poslab/errors.hpp"

namespace poslab {

template <class E>
struct Named {
  E value;
  const char* name;
  const char* argument = "";  // shown after the name in messages: "window" + ":W"
};

// "a, b or c" (each name followed by its argument), as the core's messages list choices.
template <class E, std::size_t N>
std::string name_list(const Named<E> (&table)[N]) {
  std::string out;
  for (std::size_t n = 0; n < N; ++n) {
    out += n == 0 ? "" : n + 1 == N ? " or " : ", ";
    out += std::string(table[n].name) + table[n].argument;
  }
  return out;
}

// The value named `text`, else Error "unknown <what> '<text>' (expected <list>)" with `field`.
template <class E, std::size_t N>
E parse_name(const Named<E> (&table)[N], const std::string& text, const char* what,
             const char* field) {
  for (const Named<E>& entry : table) {
    if (text == entry.name) return entry.value;
  }
  throw Error(
      "unknown " + std::string(what) + " '" + text + "' (expected " + name_list(table) + ")",
      field);
}

// The name of `value`; every table lists each enumerator once (tests/cpp/names_test.cpp).
template <class E, std::size_t N>
const char* name_of(const Named<E> (&table)[N], E value) {
  for (const Named<E>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return table[0].name;  // unreachable for a complete table
}

}  // namespace poslab
