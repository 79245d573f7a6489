// The position lens at the JS boundary (the language models' lens and the lab's textLens): its
// options as JS passes them ({ period, seed, shift, localWindow, precision, rope }, each
// optional, checked as the CLI's flags), and its report as a JS object with lens.json's keys
// (lens_json.cpp), number lists as typed arrays.
#pragma once

#include <string>
#include <vector>

#include "js_convert.hpp"
#include "poslab/analysis/lens_report.hpp"
#include "poslab/base/precision.hpp"

namespace poslab::wasm {

struct LensCall {
  LensSettings settings;
  Precision precision = Precision::kFloat;
  val rope = val::undefined();  // RoPE models: forward's `rope`, a scaling in place of the
                                // config's; or undefined
};

// lensMap's { layer, head, rope? }: which head's map, and the rotation of lens().
struct LensMapCall {
  long long layer = 0, head = 0;
  val rope = val::undefined();
};

// For a model with no rotation to scale (GPT-2, the lab's): refuses `rope`.
void refuse_rope(const val& rope, const char* model);
LensCall lens_call(const val& options, const char* function, const std::string& weights);
LensMapCall lens_map_call(const val& options, const char* function);

// The report of lens_report on `model`, as a JS object.
val lens_js(const LensModel& model, const std::vector<long long>& tokens,
            const LensSettings& settings);
// One head's map (lens_attention) as { size: T, attention: Float32Array (T·T), row i = query i }.
val lens_map_js(const LensModel& model, const std::vector<long long>& tokens,
                const LensMapCall& call);

}  // namespace poslab::wasm
