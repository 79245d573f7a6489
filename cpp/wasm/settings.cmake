# Settings of the WebAssembly build (emcmake), included by the top-level CMakeLists.txt before
# the core is added: how em++ finds Eigen, and the flags every object of the build shares.

# Eigen is header-only: find_package(Eigen3) would look in Emscripten's sysroot only, so its
# headers come through a link folder like the core's other header-only libraries.
poslab_header_link(POSLAB_EIGEN_INCLUDE Eigen Eigen/Core libeigen3-dev SUFFIX eigen3)
add_library(Eigen3::Eigen INTERFACE IMPORTED)
target_include_directories(Eigen3::Eigen SYSTEM INTERFACE ${POSLAB_EIGEN_INCLUDE})

# Flags for every object of the wasm build, so the core and the bindings agree: exceptions
# compiled in (the bindings catch the core's poslab::Error, and unwinding through the core
# must run its destructors), SIMD128 unless this is the scalar variant, and a lower element
# cap (kMaxElements is an inline constant: one value in every file).
# Exceptions are WebAssembly's own (-fwasm-exceptions: Chrome 95, Firefox 100, Safari 15.2,
# Node 17) rather than Emscripten's JavaScript emulation (-fexceptions), which wraps every call
# that may throw in a JS trampoline: the core module is 12 KB smaller gzipped (wasm 142 -> 132,
# glue 15.5 -> 13), which the 200 KB embed budget needs.
set(POSLAB_WASM_EH -fwasm-exceptions CACHE STRING "How the wasm build compiles C++ exceptions")
option(POSLAB_WASM_SIMD "Compile the WebAssembly build with SIMD128 (-msimd128)" ON)
add_compile_options(${POSLAB_WASM_EH})
if(POSLAB_WASM_SIMD)
  add_compile_options(-msimd128)
endif()
# The threaded build of the language-model module (pthreads on a SharedArrayBuffer heap, for
# cross-origin isolated pages): every object must be compiled with atomics. At most
# POSLAB_WASM_MAX_THREADS threads (base/threads.cpp), the page asking for fewer. It is built with
# POSLAB_WASM_EH=-fexceptions (scripts/build-wasm.sh): with pthreads, 3.1.6's WebAssembly
# exceptions are caught only by catch (...), so every core error would read "unknown error".
option(POSLAB_WASM_THREADS "Compile the WebAssembly build with pthreads (the language-model module only)" OFF)
set(POSLAB_WASM_MAX_THREADS 8)
if(POSLAB_WASM_THREADS)
  add_compile_options(-pthread)
  add_compile_definitions(POSLAB_WASM_MAX_THREADS=${POSLAB_WASM_MAX_THREADS})
endif()
# 2^26 float32 = 256 MiB per tensor: a few of them fit under MAXIMUM_MEMORY (cpp/wasm).
add_compile_definitions(POSLAB_MAX_ELEMENTS=67108864)
