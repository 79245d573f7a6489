// What the position-surgery tests (surgery_test.cpp, train_surgery_test.cpp) share: surgeries
// written in a line, one intervention named by the field its check reports.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "poslab/base/errors.hpp"
#include "poslab/models/position_surgery.hpp"

namespace surgery_fixture {

// Pairs `ranges` zeroed, nothing else.
inline poslab::PositionSurgery zero(std::vector<poslab::PairRange> ranges) {
  poslab::PositionSurgery s;
  s.rope_zero_pairs = std::move(ranges);
  return s;
}

// One intervention of the kind `field` names (check_surgery's fields): pairs [a, b), layer a,
// head (a, b), or base a.
inline poslab::PositionSurgery one(const std::string& field, long long a, long long b = 0) {
  poslab::PositionSurgery s;
  if (field == "ropeZeroPairs") s.rope_zero_pairs = {{a, b}};
  if (field == "nopeLayers") s.nope_layers = {a};
  if (field == "nopeHeads") s.nope_heads = {{a, b}};
  if (field == "ablateHeads") s.ablate_heads = {{a, b}};
  if (field == "ropeBase") s.rope_base = double(a);
  if (field == "ropeLocalBase") s.rope_local_base = double(a);
  return s;
}

// A check's verdict on a surgery as a field to compare: the field of the Error `check(s)`
// throws, or "accepted".
template <class Check>
std::string field_of(const Check& check, const poslab::PositionSurgery& s) {
  try {
    check(s);
  } catch (const poslab::Error& e) {
    return e.field();
  }
  return "accepted";
}

}  // namespace surgery_fixture
