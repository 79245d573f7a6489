// Position surgery at the JS boundary (docs/surgery.md): the interventions as JS passes them —
// { ropeZeroPairs: [[a, b], …], nopeLayers: [l, …], nopeHeads: [[l, h], …], ropeBase,
// ropeLocalBase, ablateHeads: [[l, h], …] }, each optional, their ranges checked by the core
// (check_surgery) —, a sweep's options as the RoPE models' surgery() and the lab's textSurgery
// take them, and the sweep's report as surgery.json's text. Used by the language-model module
// (rope_lm_bindings.hpp, and the lens's `surgery` option: lens_js.cpp) and the training module.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "js_convert.hpp"
#include "poslab/analysis/lens_report.hpp"
#include "poslab/analysis/surgery_sweep.hpp"
#include "poslab/base/precision.hpp"

namespace poslab::wasm {

// The interventions of a `surgery` option (undefined: none). Errors name the key at fault
// ("ropeZeroPairs", …; "surgery" for a value that is no options object). A base, when given,
// must be a finite number above 1 (0 is not read as "the model's", as the CLI's --rope-base).
PositionSurgery to_surgery(const val& js);

// A sweep's options: { sweep, group?, bases?, window?, seed?, surgery?, precision?, rope?,
// onProgress? }. `sweep` is required; `surgery` is the intervention of sweep 'single' (and only
// of it), `bases` only for sweep 'base', `group` only for sweep 'bands'; window 0 (the whole
// text) or at least 2.
struct SurgeryCall {
  SweepSettings settings;
  Precision precision = Precision::kFloat;
  val rope = val::undefined();         // a scaling in place of the model's, or undefined
  val on_progress = val::undefined();  // (done, total) => void | false, or undefined
};
SurgeryCall surgery_call(const val& options, const char* function);

// The sweep of `call` on `model` over `tokens`: surgery.json's text, its "weights" `weights`.
// The heads sweep reads each head's role off the lens of `lens()` (made only for it) on the
// text's first min(window, 4096) tokens, as `poslab surgery` does (a text the lens refuses: no
// roles, and a note saying why). onProgress is called after each pass group; when it returns
// false the sweep stops with an Error naming "onProgress".
std::string surgery_text(const SurgeryModel& model, const std::vector<long long>& tokens,
                         const SurgeryCall& call, const std::string& weights,
                         const std::function<LensModel()>& lens);

}  // namespace poslab::wasm
