// Prefix and suffix tests on tensor names and file names, shared by the readers and the
// trainer (C++17's std::string has no starts_with / ends_with). Internal to the core.
#pragma once

#include <string>

namespace poslab::detail {

inline bool starts_with(const std::string& text, const std::string& prefix) {
  return text.size() >= prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
}

inline bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace poslab::detail
