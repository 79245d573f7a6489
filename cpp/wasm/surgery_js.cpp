// Position surgery at the JS boundary (surgery_js.hpp). Glue run once per call: built for size
// (-Oz, cpp/wasm/CMakeLists.txt) in both modules that carry it.
#include "surgery_js.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "poslab/base/errors.hpp"
#include "poslab/base/format.hpp"

namespace poslab::wasm {
namespace {

bool is_options_object(const val& js) {
  return !js.isNull() && !js.isArray() && js.typeOf().as<std::string>() == "object";
}

// The items of the array `js` (undefined: none), each read by `item`; `shape` words one item.
template <class Item>
void for_each_item(const val& js, const char* name, const char* shape, Item item) {
  if (js.isUndefined()) return;
  require(js.isArray(), name, std::string(name) + " must be an array of " + shape);
  const unsigned n = js["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) item(js[i], i);
}

// [a, b]: two integers.
std::pair<long long, long long> integer_pair(const val& js, const char* name, unsigned i) {
  require(js.isArray() && js["length"].as<unsigned>() == 2, name,
          std::string(name) + "[" + std::to_string(i) + "] must be a pair [a, b] of integers");
  return {to_integer(js[0], name), to_integer(js[1], name)};
}

std::vector<HeadRef> heads_of(const val& js, const char* name) {
  std::vector<HeadRef> heads;
  for_each_item(js, name, "[layer, head] pairs", [&](const val& item, unsigned i) {
    const auto [layer, head] = integer_pair(item, name, i);
    heads.push_back({layer, head});
  });
  return heads;
}

// A base as given: absent is 0 (the model's); given, above 1.
double base_of(const val& js, const char* name) {
  if (js.isUndefined()) return 0.0;
  const double base = to_number(js, name);
  require(std::isfinite(base) && base > 1.0, name,
          std::string(name) + " must be a finite number above 1 (got " + format_number(base) + ")");
  return base;
}

}  // namespace

PositionSurgery to_surgery(const val& js) {
  PositionSurgery s;
  if (js.isUndefined()) return s;
  require(is_options_object(js), "surgery",
          "surgery must be an object { ropeZeroPairs, nopeLayers, nopeHeads, ropeBase, "
          "ropeLocalBase, ablateHeads }");
  const val o = to_options(
      js, "surgery",
      {"ropeZeroPairs", "nopeLayers", "nopeHeads", "ropeBase", "ropeLocalBase", "ablateHeads"});
  for_each_item(field(o, "ropeZeroPairs"), "ropeZeroPairs", "[first, last] pair ranges",
                [&](const val& item, unsigned i) {
                  const auto [first, last] = integer_pair(item, "ropeZeroPairs", i);
                  s.rope_zero_pairs.push_back({first, last});
                });
  for_each_item(
      field(o, "nopeLayers"), "nopeLayers", "layer indices",
      [&](const val& item, unsigned) { s.nope_layers.push_back(to_integer(item, "nopeLayers")); });
  s.nope_heads = heads_of(field(o, "nopeHeads"), "nopeHeads");
  s.rope_base = base_of(field(o, "ropeBase"), "ropeBase");
  s.rope_local_base = base_of(field(o, "ropeLocalBase"), "ropeLocalBase");
  s.ablate_heads = heads_of(field(o, "ablateHeads"), "ablateHeads");
  return s;
}

SurgeryCall surgery_call(const val& options, const char* function) {
  const val o = to_options(
      options, function,
      {"sweep", "group", "bases", "window", "seed", "surgery", "precision", "rope", "onProgress"});
  SurgeryCall call;
  SweepSettings& s = call.settings;
  require(!field(o, "sweep").isUndefined(), "sweep",
          std::string(function) + " needs a sweep: bands, layers, heads, base or single");
  s.kind = parse_name(kSweepKindNames, to_string(field(o, "sweep"), "sweep"), "sweep", "sweep");
  s.group = integer_field(o, "group", 0);
  require(s.group == 0 || s.kind == SweepKind::kBands, "group",
          "group is for the bands sweep (sweep: 'bands')");
  const val bases = field(o, "bases");
  require(bases.isUndefined() || s.kind == SweepKind::kBase, "bases",
          "bases are for the base sweep (sweep: 'base')");
  for_each_item(bases, "bases", "numbers",
                [&](const val& item, unsigned) { s.bases.push_back(to_number(item, "bases")); });
  s.window = integer_field(o, "window", 0);
  require(s.window == 0 || s.window >= 2, "window",
          "window must be 0 (the whole text) or at least 2 tokens (got " +
              std::to_string(s.window) + ")");
  s.seed = integer_field(o, "seed", 0);
  require(s.seed >= 0, "seed", "seed must be non-negative (got " + std::to_string(s.seed) + ")");
  const val surgery = field(o, "surgery");
  require(surgery.isUndefined() || s.kind == SweepKind::kSingle, "surgery",
          "surgery is the intervention of the single sweep (sweep: 'single')");
  s.single = to_surgery(surgery);
  require(s.kind != SweepKind::kSingle || !s.single.empty(), "surgery",
          "the single sweep runs the intervention given as surgery: give at least one of "
          "ropeZeroPairs, nopeLayers, nopeHeads, ropeBase, ropeLocalBase, ablateHeads");
  call.precision = parse_precision(string_field(o, "precision", to_string(Precision::kFloat)));
  call.rope = field(o, "rope");
  call.on_progress = field(o, "onProgress");
  require(
      call.on_progress.isUndefined() || call.on_progress.typeOf().as<std::string>() == "function",
      "onProgress", "onProgress must be a function (done, total) => void");
  return call;
}

std::string surgery_text(const SurgeryModel& model, const std::vector<long long>& tokens,
                         const SurgeryCall& call, const std::string& weights,
                         const std::function<LensModel()>& lens) {
  const SweepSettings& s = call.settings;
  std::optional<LensReport> report_of_lens;
  std::vector<std::string> lens_notes;
  if (s.kind == SweepKind::kHeads) {
    sweep_interventions(model, s);  // the settings' own checks first
    LensSettings settings;
    settings.weights = weights;
    report_of_lens = sweep_lens(model, lens(), tokens, s, settings, lens_notes);
  }
  SweepProgress progress;
  if (!call.on_progress.isUndefined()) {
    progress = [&call](std::size_t done, std::size_t total) {
      const val go = call.on_progress(double(done), double(total));
      require(!go.isFalse(), "onProgress", "the sweep was stopped by onProgress");
    };
  }
  SurgeryReport report =
      surgery_sweep(model, tokens, s, report_of_lens ? &*report_of_lens : nullptr, progress);
  report.weights = weights;
  report.notes.insert(report.notes.end(), lens_notes.begin(), lens_notes.end());
  return surgery_json(report);
}

}  // namespace poslab::wasm
