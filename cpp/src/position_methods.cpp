// Parsing and naming position methods through the one table (position_methods.hpp).
#include "poslab/position_methods.hpp"

#include <algorithm>

namespace poslab {

namespace {

// True when `text` is the method's name or one of its comma-separated aliases (scanned by
// hand: a string stream would bring iostreams into every wasm module).
bool names(const PositionMethodInfo& m, const std::string& text) {
  if (text == m.name) return true;
  const std::string aliases = m.aliases;
  for (std::size_t begin = 0; begin < aliases.size();) {
    const std::size_t end = std::min(aliases.find(',', begin), aliases.size());
    if (end > begin && aliases.compare(begin, end - begin, text) == 0) return true;
    begin = end + 1;
  }
  return false;
}

// "a, b or c": the names of the methods `where` supports.
std::string supported_list(unsigned where) {
  std::string out;
  std::size_t count = 0, n = 0;
  for (const PositionMethodInfo& m : kPositionMethods) count += (m.support & where) == where;
  for (const PositionMethodInfo& m : kPositionMethods) {
    if ((m.support & where) != where) continue;
    out += n == 0 ? "" : n + 1 == count ? " or " : ", ";
    out += m.name;
    ++n;
  }
  return out;
}

}  // namespace

PositionMethod parse_position_method(const std::string& text, unsigned where, const char* what,
                                     const char* field) {
  for (const PositionMethodInfo& m : kPositionMethods) {
    if (!names(m, text)) continue;
    if ((m.support & where) == where) return m.method;
    throw Error(std::string(what) + " '" + text + "' is not available here (expected " +
                    supported_list(where) + ")",
                field);
  }
  throw Error(
      "unknown " + std::string(what) + " '" + text + "' (expected " + supported_list(where) + ")",
      field);
}

const char* to_string(PositionMethod method) { return position_method_info(method).name; }

}  // namespace poslab
