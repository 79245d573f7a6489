# POSLAB_SIMD_MAX: the widest x86 instruction set the SIMD paths (src/fast, the trainer's ops) are
# compiled for. They use Highway's static dispatch on -march=native, so a cap has to be a compile
# flag: a run-time switch could not remove the AVX-512 code the compiler already chose (Highway's
# target and the compiler's own vectorisation alike). Valgrind 3.19 decodes no AVX-512, hence
# `avx2` for memory-check builds. Also runnable as a script, which prints the flags or refuses:
# cmake -DPOSLAB_SIMD_MAX=avx2 -P cmake/SimdMax.cmake
if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  cmake_minimum_required(VERSION 3.22)  # a script starts with no policies (IN_LIST needs them)
endif()
set(POSLAB_SIMD_MAX_VALUES native avx2 sse4 baseline)

# poslab_simd_flags(OUT VALUE): the compile options for VALUE, or a configure error naming
# POSLAB_SIMD_MAX and its valid values.
#   native    -march=native: everything this CPU has (Highway AVX3/AVX3_DL on AVX-512 machines)
#   avx2      this CPU's set without AVX-512 (Highway AVX2 where the CPU has it; no EVEX code)
#   sse4      this CPU's set without AVX (Highway SSE4)
#   baseline  no -march: the compiler's default target (x86-64: SSE2, Highway EMU128)
function(poslab_simd_flags out_var value)
  if(NOT value IN_LIST POSLAB_SIMD_MAX_VALUES)
    list(JOIN POSLAB_SIMD_MAX_VALUES ", " valid)
    message(FATAL_ERROR "POSLAB_SIMD_MAX '${value}' is not one of: ${valid}")
  endif()
  if(value MATCHES "^(avx2|sse4)$" AND NOT CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64"
     AND NOT CMAKE_SCRIPT_MODE_FILE)
    message(FATAL_ERROR "POSLAB_SIMD_MAX '${value}' is an x86-64 instruction set, and this "
                        "build targets ${CMAKE_SYSTEM_PROCESSOR} (use native or baseline)")
  endif()
  if(value STREQUAL "native")
    set(flags -march=native)
  elseif(value STREQUAL "avx2")
    set(flags -march=native -mno-avx512f)  # AVX-512's other subsets all depend on F
  elseif(value STREQUAL "sse4")
    set(flags -march=native -mno-avx)  # also drops AVX2, FMA, F16C and AVX-512
  else()
    set(flags "")
  endif()
  set(${out_var} "${flags}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  poslab_simd_flags(flags "${POSLAB_SIMD_MAX}")
  list(JOIN flags " " flags)
  message("POSLAB_SIMD_MAX=${POSLAB_SIMD_MAX}: ${flags}")
endif()
