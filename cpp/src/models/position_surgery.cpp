// Position surgery's checks and per-layer plan (poslab/models/position_surgery.hpp).
#include "poslab/models/position_surgery.hpp"

#include <algorithm>
#include <cmath>

#include "poslab/base/errors.hpp"
#include "poslab/base/format.hpp"

namespace poslab {

bool PositionSurgery::empty() const { return !rotates() && ablate_heads.empty(); }

bool PositionSurgery::rotates() const {
  return !rope_zero_pairs.empty() || !nope_layers.empty() || !nope_heads.empty() ||
         rope_base != 0.0 || rope_local_base != 0.0;
}

namespace {

void check_head(const HeadRef& h, const SurgeryTarget& t, const char* field) {
  require(h.layer >= 0 && h.layer < t.layers, field,
          "layer " + std::to_string(h.layer) + " is outside the model's " +
              std::to_string(t.layers) + " layers (0 to " + std::to_string(t.layers - 1) + ")");
  require(h.head >= 0 && h.head < t.heads, field,
          "head " + std::to_string(h.head) + " is outside the model's " + std::to_string(t.heads) +
              " heads per layer (0 to " + std::to_string(t.heads - 1) + ")");
}

void check_base(double base, const char* field, const char* what) {
  require(base == 0.0 || (std::isfinite(base) && base > 1.0), field,
          std::string(what) + " must be a finite number above 1 (got " + format_number(base) + ")");
}

}  // namespace

void check_surgery(const PositionSurgery& s, const SurgeryTarget& t) {
  if (s.rotates()) {
    const char* field = !s.rope_zero_pairs.empty() ? "ropeZeroPairs"
                        : !s.nope_layers.empty()   ? "nopeLayers"
                        : !s.nope_heads.empty()    ? "nopeHeads"
                        : s.rope_base != 0.0       ? "ropeBase"
                                                   : "ropeLocalBase";
    require(t.rotary_pairs > 0, field,
            t.model +
                " has no rotation of q and k: zeroed pairs, NoPE layers or heads and the "
                "base are for RoPE models (ablating heads applies to any)");
  }
  for (const PairRange& r : s.rope_zero_pairs) {
    require(r.first >= 0 && r.first <= r.last && r.last <= t.rotary_pairs, "ropeZeroPairs",
            "a zeroed pair range " + std::to_string(r.first) + ":" + std::to_string(r.last) +
                " must lie inside [0, R/2] = [0, " + std::to_string(t.rotary_pairs) +
                "] and not be inverted");
  }
  for (const long long l : s.nope_layers) {
    require(l >= 0 && l < t.layers, "nopeLayers",
            "layer " + std::to_string(l) + " is outside the model's " + std::to_string(t.layers) +
                " layers (0 to " + std::to_string(t.layers - 1) + ")");
  }
  for (const HeadRef& h : s.nope_heads) check_head(h, t, "nopeHeads");
  for (const HeadRef& h : s.ablate_heads) check_head(h, t, "ablateHeads");
  check_base(s.rope_base, "ropeBase", "the rotation base");
  check_base(s.rope_local_base, "ropeLocalBase", "the local layers' rotation base");
  require(s.rope_local_base == 0.0 || t.local_layers, "ropeLocalBase",
          t.model +
              " has no local (sliding-window) layers turning at a base of their own: "
              "every layer turns at the one rope base");
}

std::size_t first_changed_layer(const PositionSurgery& s, std::size_t layers) {
  if (!s.rope_zero_pairs.empty() || s.rope_base != 0.0 || s.rope_local_base != 0.0) return 0;
  std::size_t first = layers;
  for (const long long l : s.nope_layers) first = std::min(first, std::size_t(l));
  for (const HeadRef& h : s.nope_heads) first = std::min(first, std::size_t(h.layer));
  for (const HeadRef& h : s.ablate_heads) first = std::min(first, std::size_t(h.layer));
  return first;
}

LayerSurgery layer_surgery(const PositionSurgery& s, std::size_t layer, std::size_t heads) {
  LayerSurgery out;
  const long long l = static_cast<long long>(layer);
  out.nope = std::find(s.nope_layers.begin(), s.nope_layers.end(), l) != s.nope_layers.end();
  const auto mark = [&](const std::vector<HeadRef>& refs, std::vector<char>& flags) {
    for (const HeadRef& h : refs) {
      if (h.layer != l) continue;
      flags.resize(heads, 0);
      flags[std::size_t(h.head)] = 1;
    }
  };
  mark(s.nope_heads, out.nope_heads);
  mark(s.ablate_heads, out.ablated);
  return out;
}

RopeOptions surgery_rope(const RopeOptions& rope, const PositionSurgery& s, bool local) {
  RopeOptions out = rope;
  const double base = local ? s.rope_local_base : s.rope_base;
  if (base != 0.0) out.base = base;
  if (!s.rope_zero_pairs.empty()) out.zero_pairs = &s.rope_zero_pairs;
  return out;
}

std::string describe(const PositionSurgery& s) {
  std::string out;
  const auto add = [&out](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
  const auto heads = [](const std::vector<HeadRef>& refs) {
    std::string list;
    for (const HeadRef& h : refs) {
      list += (list.empty() ? "" : ",") + std::to_string(h.layer) + ":" + std::to_string(h.head);
    }
    return list;
  };
  if (!s.rope_zero_pairs.empty()) {
    std::string list;
    for (const PairRange& r : s.rope_zero_pairs) {
      list += (list.empty() ? "" : ",") + std::to_string(r.first) + ":" + std::to_string(r.last);
    }
    add("zero pairs " + list);
  }
  if (!s.nope_layers.empty()) {
    std::string list;
    for (const long long l : s.nope_layers) list += (list.empty() ? "" : ",") + std::to_string(l);
    add("NoPE layers " + list);
  }
  if (!s.nope_heads.empty()) add("NoPE heads " + heads(s.nope_heads));
  if (s.rope_base != 0.0) add("base " + format_label(s.rope_base));
  if (s.rope_local_base != 0.0) add("local base " + format_label(s.rope_local_base));
  if (!s.ablate_heads.empty()) add("ablated heads " + heads(s.ablate_heads));
  return out.empty() ? "none" : out;
}

}  // namespace poslab
