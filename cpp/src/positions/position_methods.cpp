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

RopeOptions rotation_defaults(PositionMethod method) {
  const PositionMethodInfo& info = position_method_info(method);
  if (info.kind != PositionKind::kRotation) {
    throw Error(std::string("position method '") + info.name + "' does not rotate q and k",
                "method");
  }
  RopeOptions options;
  options.style = info.pairs;
  for (std::size_t k = 0; k < info.option_count; ++k) {
    const PositionOption& o = info.options[k];
    const std::string name = o.name;
    if (name == "base") options.base = o.default_value;
    if (name == "rotaryFraction") options.rotary_fraction = o.default_value;
    if (name == "scaleBase") options.scale_base = o.default_value;
    if (name == "keepFraction") options.keep_fraction = o.default_value;
  }
  return options;
}

RopeOptions rotation_defaults(const std::string& name) {
  return rotation_defaults(parse_position_method(name, kSupportCore, "rotation method", "method"));
}

}  // namespace poslab
