// `poslab methods`: the core's table of position methods (position_methods.hpp) as JSON on
// stdout, one object per method in the table's order, as the wasm module's lab.positionMethods
// gives it: what scripts read instead of keeping their own method lists.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "poslab/positions/position_methods.hpp"

namespace poslab::cli {
namespace {

nlohmann::ordered_json position_methods_json() {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const PositionMethodInfo& m : kPositionMethods) {
    nlohmann::ordered_json support = nlohmann::ordered_json::object();
    for (const auto& bit : kPositionSupportNames) support[bit.name] = (m.support & bit.value) != 0;
    nlohmann::ordered_json options = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < m.option_count; ++k) {
      const PositionOption& o = m.options[k];
      options.push_back({{"name", o.name},
                         {"default", o.default_value},
                         {"min", o.min},
                         {"max", o.max},
                         {"about", o.about}});
    }
    nlohmann::ordered_json aliases = nlohmann::ordered_json::array();
    if (*m.alias != '\0') aliases.push_back(m.alias);
    out.push_back({{"name", m.name},
                   {"aliases", aliases},
                   {"kind", name_of(kPositionKindNames, m.kind)},
                   {"support", support},
                   {"options", options},
                   {"summary", m.summary}});
    if (m.kind == PositionKind::kRotation) out.back()["pairs"] = name_of(kRopeStyleNames, m.pairs);
  }
  return out;
}

}  // namespace

void add_methods_command(Commands& commands) {
  commands.add("methods",
               "The position methods as JSON: name, aliases, kind, where each runs (core, "
               "trainer, cuda, ...), its options with defaults and ranges",
               [] { std::printf("%s\n", position_methods_json().dump(1).c_str()); });
}

}  // namespace poslab::cli
