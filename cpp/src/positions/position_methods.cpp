// Parsing and naming position methods through the one table (position_methods.hpp).
#include "poslab/positions/position_methods.hpp"

#include <vector>

namespace poslab {

namespace {

// The name table of the methods `where` supports, in the table's order (a run-time
// position_method_names), for name_list.
std::vector<Named<PositionMethod>> supported(unsigned where) {
  std::vector<Named<PositionMethod>> names;
  for (const PositionMethodInfo& m : kPositionMethods) {
    if (supports(m.method, where)) names.push_back({m.method, m.name});
  }
  return names;
}

}  // namespace

PositionMethod parse_position_method(const std::string& text, unsigned where, const char* what,
                                     const char* field) {
  for (const PositionMethodInfo& m : kPositionMethods) {
    if (text != m.name && (*m.alias == '\0' || text != m.alias)) continue;
    if (supports(m.method, where)) return m.method;
    throw Error(std::string(what) + " '" + text + "' is not available here (expected " +
                    name_list(supported(where)) + ")",
                field);
  }
  throw Error("unknown " + std::string(what) + " '" + text + "' (expected " +
                  name_list(supported(where)) + ")",
              field);
}

const char* to_string(PositionMethod method) { return position_method_info(method).name; }

}  // namespace poslab
