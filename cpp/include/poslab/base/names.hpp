// One table of names per enum of the core, and the one parse/format pair over such a table:
// the CLI, the JS API (lab.names) and the page all read the same list, so a name added to a
// table is accepted, printed, listed in messages and offered in the UI at once.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>

#include "poslab/base/errors.hpp"

namespace poslab {

template <class E>
struct Named {
  E value;
  const char* name;
  const char* argument = "";  // shown after the name in messages: "window" + ":W"
};

// A name table: a C array or std::array of Named<E>; NamedValue is its E.
template <class Table>
using NamedValue = std::remove_cv_t<decltype(std::begin(std::declval<const Table&>())->value)>;

// "a, b or c" (each name followed by its argument), as the core's messages list choices.
template <class Table>
std::string name_list(const Table& table) {
  const std::size_t count = std::size(table);
  std::string out;
  std::size_t n = 0;
  for (const auto& entry : table) {
    out += n == 0 ? "" : n + 1 == count ? " or " : ", ";
    out += std::string(entry.name) + entry.argument;
    ++n;
  }
  return out;
}

// The value named `text`, else Error "unknown <what> '<text>' (expected <list>)" with `field`.
template <class Table>
NamedValue<Table> parse_name(const Table& table, const std::string& text, const char* what,
                             const char* field) {
  for (const auto& entry : table) {
    if (text == entry.name) return entry.value;
  }
  throw Error(
      "unknown " + std::string(what) + " '" + text + "' (expected " + name_list(table) + ")",
      field);
}

// The name of `value`; every table lists each enumerator once (tests/cpp/names_test.cpp).
template <class Table>
const char* name_of(const Table& table, NamedValue<Table> value) {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return std::begin(table)->name;  // unreachable for a complete table
}

}  // namespace poslab
