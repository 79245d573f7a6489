// The position lens at the JS boundary (the language models' lens and the lab's textLens): its
// options as JS passes them ({ period, seed, shift, localWindow, precision, rope, surgery },
// each optional, checked as the CLI's flags; surgery: surgery_js.hpp's interventions inside
// every pass), and its report as a JS object with lens.json's keys (lens_json.cpp), number
// lists as typed arrays.
#pragma once

#include <string>
#include <vector>

#include "js_convert.hpp"
#include "poslab/analysis/lens_report.hpp"
#include "poslab/base/precision.hpp"
#include "poslab/models/position_surgery.hpp"

namespace poslab::wasm {

struct LensCall {
  LensSettings settings;
  Precision precision = Precision::kFloat;
  val rope = val::undefined();  // RoPE models: forward's `rope`, a scaling in place of the
                                // config's; or undefined
  PositionSurgery surgery;      // interventions inside every pass (none by default)
};

// lensMap's { layer, head, rope?, surgery? }: which head's map, and the rotation and surgery of
// lens().
struct LensMapCall {
  long long layer = 0, head = 0;
  val rope = val::undefined();
  PositionSurgery surgery;
};

// For a model with no rotation to scale (GPT-2, the lab's): refuses `rope`.
void refuse_rope(const val& rope, const char* model);
// For a model without position surgery (GPT-2's learned positions): refuses `surgery`.
void refuse_surgery(const PositionSurgery& surgery, const char* model);
LensCall lens_call(const val& options, const char* function, const std::string& weights);
LensMapCall lens_map_call(const val& options, const char* function);

// The report of lens_report on `model`, as a JS object.
val lens_js(const LensModel& model, const std::vector<long long>& tokens,
            const LensSettings& settings);
// One head's map (lens_attention) as { size: T, attention: Float32Array (T·T), row i = query i }.
val lens_map_js(const LensModel& model, const std::vector<long long>& tokens,
                const LensMapCall& call);

}  // namespace poslab::wasm
