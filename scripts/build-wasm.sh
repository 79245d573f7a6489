#!/usr/bin/env bash
# Builds the WebAssembly module twice from the same sources (`npm run build:wasm`):
#   build/wasm/simd    -msimd128: the playground's build
#   build/wasm/scalar  no SIMD (Highway falls back to EMU128): the baseline the benchmark and
#                      tests compare against
#   build/wasm/threads SIMD128 + pthreads, the language-model module alone: what a
#                      cross-origin isolated page loads for its models
# Each holds poslab.mjs + poslab.wasm; the link step prints their gzipped size. The SIMD builds
# also hold relaxed/: each module again with its GEMM and attention products on
# f32x4.relaxed_madd (cpp/wasm/CMakeLists.txt), which the page loads where the browser has
# relaxed SIMD; only the fast paths are compiled twice, so it costs a few links.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's Emscripten 3.1.6 runs its JS optimiser in Node and needs the system's acorn.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
# At most two compile jobs unless told otherwise: the core is heavy on memory under em++.
jobs=${POSLAB_JOBS:-2}

command -v emcmake >/dev/null || { echo "emcmake not found: run scripts/setup.sh" >&2; exit 1; }
mkdir -p build/wasm

for variant in simd scalar threads; do
  simd=ON threads=OFF targets=() eh=-fwasm-exceptions
  [ "$variant" = scalar ] && simd=OFF
  # Emscripten 3.1.6's pthreads with WebAssembly exceptions catch only catch(...): every core
  # error would arrive as "unknown error". Its JS-based exceptions catch by type there.
  [ "$variant" = threads ] && threads=ON targets=(--target poslab_lm_wasm poslab_lm_wasm_relaxed) eh=-fexceptions
  dir=build/wasm/$variant
  echo "== wasm $variant: configure and build ($dir)"
  # emcmake's default emulator flag (--experimental-wasm-threads) is refused by Node 20.
  emcmake cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPOSLAB_WASM_SIMD=$simd \
    -DPOSLAB_WASM_THREADS=$threads -DPOSLAB_WASM_EH=$eh -DCMAKE_CROSSCOMPILING_EMULATOR=node >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; exit 1; }
  cmake --build "$dir" -j "$jobs" "${targets[@]}"
done
