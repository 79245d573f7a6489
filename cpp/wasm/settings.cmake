# Settings of the WebAssembly build (emcmake), included by the top-level CMakeLists.txt before
# the core is added: how em++ finds Eigen, and the flags every object of the build shares.

# Eigen is header-only: its headers reach em++ through a build-tree folder holding only an
# `Eigen` link, as Highway's do (cpp/CMakeLists.txt), so em++ never sees the host's glibc
# headers in /usr/include. find_package(Eigen3) would look in Emscripten's sysroot only.
find_path(EIGEN3_INCLUDE_DIR Eigen/Core PATHS /usr/include /usr/local/include
          PATH_SUFFIXES eigen3 NO_CMAKE_FIND_ROOT_PATH)
if(NOT EIGEN3_INCLUDE_DIR)
  message(FATAL_ERROR "Eigen 3 headers not found (Debian: apt install libeigen3-dev)")
endif()
set(POSLAB_EIGEN_INCLUDE ${CMAKE_BINARY_DIR}/eigen-include)
file(MAKE_DIRECTORY ${POSLAB_EIGEN_INCLUDE})
file(CREATE_LINK ${EIGEN3_INCLUDE_DIR}/Eigen ${POSLAB_EIGEN_INCLUDE}/Eigen SYMBOLIC)
add_library(Eigen3::Eigen INTERFACE IMPORTED)
target_include_directories(Eigen3::Eigen SYSTEM INTERFACE ${POSLAB_EIGEN_INCLUDE})

# Flags for every object of the wasm build, so the core and the bindings agree: exceptions
# compiled in (the bindings catch the core's poslab::Error, and unwinding through the core
# must run its destructors), SIMD128 unless this is the scalar variant, and a lower element
# cap (kMaxElements is an inline constant: one value in every file).
option(POSLAB_WASM_SIMD "Compile the WebAssembly build with SIMD128 (-msimd128)" ON)
add_compile_options(-fexceptions)
if(POSLAB_WASM_SIMD)
  add_compile_options(-msimd128)
endif()
# 2^26 float32 = 256 MiB per tensor: a few of them fit under MAXIMUM_MEMORY (cpp/wasm).
add_compile_definitions(POSLAB_MAX_ELEMENTS=67108864)
