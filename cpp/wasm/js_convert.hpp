// Conversions between JavaScript values and the core's types, for the embind layer. Bound
// functions take every argument as a val and every reader checks the JS type before
// converting: embind's own conversions turn "4", null, true and [4] into numbers, NaN into 0
// and 3.7 into 3, or throw a JS error that unwinds past C++ destructors.
//
// The rule for arguments: a number is a JS number (never a string, null, boolean or array); a
// string is a JS string; a boolean is true or false; an options object is a plain object whose
// keys are all known, and undefined means {} (as an omitted options argument does in the JS
// API); null, arrays and other values are refused.
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "poslab/base/names.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/positions/relative.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab::wasm {

using emscripten::val;

// A JS number, else Error naming `what` and what it got. Finiteness and ranges are the core's.
double to_number(const val& js, const char* what);

// A size or offset passed as a JS number: finite, integral and within ±2^53, else Error
// naming `what`. Range checks (positive, under the cap) are the core's.
long long to_integer(const val& js, const char* what);

// A seed: an integer in [0, 2^53).
std::uint64_t to_seed(const val& js, const char* what = "seed");

// true or false (never 0, 1, a string or null), else Error naming `what`.
bool to_bool(const val& js, const char* what);

// A JS string, else Error naming `what`.
std::string to_string(const val& js, const char* what);

// An options object (see the rule above): `js` itself, or an empty object for undefined; Error
// "<what> options must be an object (got …)" or "unknown option 'k' for <what> (expected …)".
val to_options(const val& js, const char* what, std::initializer_list<const char*> allowed);
// The same, `more` adding keys known only at run time (the score biases' names).
val to_options(const val& js, const char* what, std::initializer_list<const char*> allowed,
               const std::vector<std::string>& more);

// { data: Float32Array, shape: number[] } → TensorF; data.length must equal product(shape).
TensorF to_tensor(const val& js, const char* what);

// A Uint8Array (nonzero = true) → bytes.
std::vector<std::uint8_t> to_bytes(const val& js, const char* what);

// A Uint8Array's bytes copied into `out` (resized to fit) in one memcpy by the JS engine:
// file chunks of megabytes, where element-wise conversion would take seconds.
void copy_bytes(const val& js, const char* what, std::string& out);

// The field `name` of an options object (checked by to_options), or undefined when absent.
val field(const val& object, const char* name);

// Fields of an options object: the field's value if present, else `fallback`.
double number_field(const val& object, const char* name, double fallback);
long long integer_field(const val& object, const char* name, long long fallback);
std::uint64_t seed_field(const val& object, const char* name);  // 0 when absent
bool bool_field(const val& object, const char* name, bool fallback);
std::string string_field(const val& object, const char* name, const std::string& fallback);

// { method, style, base, rotaryFraction, scaling, factor, originalLength, lowFreqFactor,
//   highFreqFactor, betaFast, betaSlow, scaleBase, keepFraction }, each optional: absent fields
//   keep the defaults of `method` (a rotation method of the table; the core's RopeOptions without
//   it).
RopeOptions to_rope_options(const val& js);

// { bidirectional, numBuckets, maxDistance }, each optional.
T5BucketOptions to_t5_options(const val& js);

// Results: fresh JS objects { data: Float32Array | Int32Array, shape: number[] } that own a
// copy of the data, so they survive later calls and heap growth.
val to_js(const TensorF& tensor);
val to_js(const TensorI& tensor);
val to_js(const Tensor<std::uint8_t>& tensor);  // data: a Uint8Array
val to_js(const std::vector<double>& values);   // as a Float64Array of shape (n,): kept double

// The names of a core name table (names.hpp), in order, as a JS array of strings.
template <class Table>
val names_js(const Table& table) {
  val out = val::array();
  for (const auto& entry : table) out.call<void>("push", std::string(entry.name));
  return out;
}

}  // namespace poslab::wasm
