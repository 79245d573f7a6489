// Numbers in messages: printed so that a refused value never reads as an acceptable one.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace poslab {

// `value` as the shortest %g text that reads back as the same double ("0.9999999", "1e-09",
// "-1e-30", "nan"), where std::to_string would print 0.9999999 as "1.000000".
inline std::string format_number(double value) {
  char text[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

}  // namespace poslab
