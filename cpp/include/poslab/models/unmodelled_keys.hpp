// config.json keys that change position or attention math in some architecture but are not
// read by the runtime of the config's own: Hugging Face ignores a key its model type does not
// read, and so does PosLab, but says so (the CLI on stderr and in each JSON output's notes).
#pragma once

#include <string>
#include <vector>

#include "poslab/models/lm.hpp"

namespace poslab {

// The top-level keys of `config_text` (rope_scaling's own are refused when not read) that
// are present with a value that does something (not null, false, 0 or empty), change position
// or attention math elsewhere, and are not read by `architecture`'s runtime. Empty text: none.
std::vector<std::string> unmodelled_keys(const std::string& config_text,
                                         LmArchitecture architecture);

// "config.json: not read by the llama runtime (Hugging Face's llama ignores them too), though
// they change position or attention math in other architectures: no_rope_layers, sinks";
// "" for no keys.
std::string unmodelled_keys_note(const std::vector<std::string>& keys, const std::string& name,
                                 LmArchitecture architecture);

}  // namespace poslab
