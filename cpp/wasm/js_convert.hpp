// Conversions between JavaScript values and the core's types, for the embind layer. Every
// reader checks the JS type before converting: embind would otherwise turn NaN into 0 and
// 3.7 into 3, or throw a JS TypeError that unwinds past C++ destructors.
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <vector>

#include "poslab/rope.hpp"
#include "poslab/tensor.hpp"

namespace poslab::wasm {

using emscripten::val;

// A size or offset passed as a JS number: finite, integral and within ±2^53, else Error
// naming `what`. Range checks (positive, under the cap) are the core's.
long long to_integer(double value, const char* what);

// A seed: an integer in [0, 2^53).
std::uint64_t to_seed(double value);

// { data: Float32Array, shape: number[] } → TensorF; data.length must equal product(shape).
TensorF to_tensor(const val& js, const char* what);

// A Uint8Array (nonzero = true) → bytes.
std::vector<std::uint8_t> to_bytes(const val& js, const char* what);

// A Uint8Array's bytes copied into `out` (resized to fit) in one memcpy by the JS engine:
// file chunks of megabytes, where element-wise conversion would take seconds.
void copy_bytes(const val& js, const char* what, std::string& out);

// The field `name` of an options object, or undefined when absent (or not an object).
val field(const val& object, const char* name);

// Fields of an options object: the field's value if present, else `fallback`.
double number_field(const val& object, const char* name, double fallback);
long long integer_field(const val& object, const char* name, long long fallback);
bool bool_field(const val& object, const char* name, bool fallback);
std::string string_field(const val& object, const char* name, const std::string& fallback);

// { style, base, rotaryFraction, scaling, factor, originalLength, lowFreqFactor,
//   highFreqFactor, betaFast, betaSlow }, each optional: absent fields keep the core's defaults.
RopeOptions to_rope_options(const val& js);

// Results: fresh JS objects { data: Float32Array | Int32Array, shape: number[] } that own a
// copy of the data, so they survive later calls and heap growth.
val to_js(const TensorF& tensor);
val to_js(const TensorI& tensor);
val to_js(const std::vector<double>& values);  // as a Float32Array of shape (n,)

}  // namespace poslab::wasm
