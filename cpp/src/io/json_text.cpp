// Strict JSON text (poslab/io/json_text.hpp).
#include "poslab/io/json_text.hpp"

#include <algorithm>

#include "poslab/base/errors.hpp"

namespace poslab {

nlohmann::json parse_json_text(const std::string& text, const std::string& name) {
  const std::size_t nul = text.find('\0');
  if (nul != std::string::npos) {
    throw Error(name + ": not valid JSON: a NUL byte at offset " + std::to_string(nul));
  }
  try {
    return nlohmann::json::parse(text);  // strict: nothing but whitespace after the value
  } catch (const nlohmann::json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 2: …" → "parse error …"
    std::string why = e.what();
    if (!why.empty() && why.front() == '[') why.erase(0, std::min(why.find("] ") + 2, why.size()));
    throw Error(name + ": not valid JSON: " + why);
  }
}

}  // namespace poslab
