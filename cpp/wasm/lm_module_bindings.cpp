// The language-model module's functions that belong to no one architecture: which
// architecture a checkpoint or config.json holds, a checkpoint header's length (read before the
// architecture is known), the RoPE inspector (any config.json, no weights; here because this
// module already reads configs, which keeps a JSON parser out of the core module and the embed),
// the model-type table that both read configs by, and the heap measurements its tests and
// benchmark read. Each architecture registers its own surface (gpt2_bindings.cpp,
// gpt_neox_bindings.cpp through lm_bindings.hpp's register_lm_module). Every exception becomes
// { error, field } (guard.hpp).
#include <emscripten/bind.h>
#include <emscripten/heap.h>

#include <string>

#include "guard.hpp"
#include "heap.hpp"
#include "js_convert.hpp"
#include "lm_bindings.hpp"
#include "poslab/base/threads.hpp"
#include "poslab/io/safetensors.hpp"
#include "poslab/models/lm.hpp"
#include "poslab/models/model_types.hpp"
#include "poslab/models/rope_config.hpp"

namespace poslab::wasm {
namespace {

using Num = val;
using Str = val;

val safetensors_header_length_js(val first_8_bytes, Num file_size, Str name) {
  return guarded([&] {
    std::string bytes;
    copy_bytes(first_8_bytes, "first8", bytes);
    return val(
        double(safetensors_header_length(bytes, file_size_of(file_size), to_string(name, "name"))));
  });
}

// 'gpt2' | 'gpt_neox' from a checkpoint's first 8 + N bytes (its tensor names).
val lm_architecture_of_checkpoint_js(val header_bytes, Num file_size, Str file_name) {
  return guarded([&] {
    const std::string name = to_string(file_name, "name");
    const SafetensorsHeader header = header_of(header_bytes, file_size, name);
    return val(std::string(to_string(lm_architecture_of_checkpoint(header, name))));
  });
}

// config.json's model_type: 'gpt2' | 'gpt_neox', or null when the key is absent.
val lm_architecture_of_config_js(Str text, Str file_name) {
  return guarded([&] {
    const auto arch =
        lm_architecture_of_config(to_string(text, "config"), to_string(file_name, "name"));
    return arch ? val(std::string(to_string(*arch))) : val::null();
  });
}

// The RoPE inspector's report as JSON text, what `poslab rope-config` writes. `sample`: the
// M-RoPE prompt { textBefore, imageH, imageW, textAfter } (each optional), or undefined for
// the default one; the core's refusal of its values is on the field "mropeSample".
val rope_config_js(Str text, Str file_name, val sample) {
  return guarded([&] {
    RopeSample s;
    const val o =
        to_options(sample, "mropeSample", {"textBefore", "imageH", "imageW", "textAfter"});
    s = {integer_field(o, "textBefore", s.text_before), integer_field(o, "imageH", s.image_h),
         integer_field(o, "imageW", s.image_w), integer_field(o, "textAfter", s.text_after)};
    try {
      return val(rope_config_report_json(
          inspect_rope_config(to_string(text, "config"), to_string(file_name, "name"), s)));
    } catch (const Error& e) {
      if (e.field() != "sample") throw;
      throw Error(e.what(), "mropeSample");
    }
  });
}

#if !defined(__EMSCRIPTEN_PTHREADS__)
// The model-type table as JSON text (model_types_json), for scripts/generators/model-types.mjs,
// which writes the page's copy (web/src/state/model-types.js). Only the single-threaded builds
// have it: the page reads the generated file, never the module, and the generator loads
// build/wasm/simd, so the threaded module (at its size budget) leaves it out.
std::string model_types_js() { return model_types_json(); }
#endif

// How many threads the products and attention use: 1 in the single-threaded builds, up to the
// page's worker pool + 1 in the threaded one (base/threads.hpp). A count out of range throws
// naming "threads".
val set_threads_js(Num n) {
  return guarded([&] {
    const long long count = to_integer(n, "threads");
    require(count >= 1, "threads", "threads must be at least 1, got " + std::to_string(count));
    set_thread_count(static_cast<std::size_t>(count));
    return val::undefined();
  });
}
double threads_js() { return double(thread_count()); }
double max_threads_js() { return double(max_thread_count()); }

// The pool's time since the last resetPoolProfile() (base/threads.hpp's PoolProfile, seconds as
// milliseconds): what a benchmark prints to show where the other threads wait.
val pool_profile_js() {
  const PoolProfile p = pool_profile();
  val o = val::object();
  o.set("batches", double(p.batches));
  o.set("chunks", double(p.chunks));
  o.set("batchMs", 1e3 * p.batch_s);
  o.set("slowestMs", 1e3 * p.slowest_s);
  o.set("callerWorkMs", 1e3 * p.caller_work_s);
  o.set("workerWorkMs", 1e3 * p.worker_work_s);
  return o;
}

// The size of the wasm heap (it only grows): the high-water mark a benchmark reports.
double wasm_heap_bytes() { return double(emscripten_get_heap_size()); }

}  // namespace
}  // namespace poslab::wasm

EMSCRIPTEN_BINDINGS(poslab_lm) {
  using emscripten::function;
  using namespace poslab::wasm;
  function("safetensorsHeaderLength", &safetensors_header_length_js);
  function("lmArchitectureOfCheckpoint", &lm_architecture_of_checkpoint_js);
  function("lmArchitectureOfConfig", &lm_architecture_of_config_js);
  function("ropeConfig", &rope_config_js);
#if !defined(__EMSCRIPTEN_PTHREADS__)
  function("modelTypes", &model_types_js);
#endif
  function("liveHeapBytes", &live_heap_bytes);
  function("wasmHeapBytes", &wasm_heap_bytes);
  function("setThreads", &set_threads_js);
  function("threads", &threads_js);
  function("maxThreads", &max_threads_js);
  function("poolProfile", &pool_profile_js);
  function("resetPoolProfile", &poslab::reset_pool_profile);
}
