// JSON read from a file, strictly: the whole text is one value. nlohmann's parser takes a NUL
// byte for the end of its input, so `{"model_type": "llama"}\0, "rope_scaling": {…}` would
// read as its first half, silently; a NUL is refused here, as is any byte after the value.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace poslab {

// `text` as JSON; else Error "`name`: not valid JSON: <why>" (the byte offset of a NUL, or the
// parser's message without its exception tag).
nlohmann::json parse_json_text(const std::string& text, const std::string& name);

}  // namespace poslab
