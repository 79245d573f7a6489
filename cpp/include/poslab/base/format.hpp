// Numbers in messages: printed so that a refused value never reads as an acceptable one.
#pragma once

#include <cmath>
#include <cstdint>
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

// `value` as a label reads it: a whole number below 10^15 in full ("500", "10000", where
// format_number gives "5e+02"), anything else as format_number.
inline std::string format_label(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f", value);
    return text;
  }
  return format_number(value);
}

// "1.5 GiB", "300 MiB": a size as a person reads it.
inline std::string format_bytes(std::uint64_t bytes) {
  const double gib = double(bytes) / double(1 << 30);
  if (gib >= 1) return format_number(std::round(gib * 10) / 10) + " GiB";
  return format_number(std::round(double(bytes) / double(1 << 20) * 10) / 10) + " MiB";
}

}  // namespace poslab
