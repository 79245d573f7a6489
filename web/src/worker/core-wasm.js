// The core module's .wasm the page runs: the SIMD build's relaxed twin (its GEMM and attention
// products on f32x4.relaxed_madd) where the engine has relaxed SIMD, else the SIMD build. Both
// run the SIMD build's glue, to which the callers hand the chosen bytes or URL: the twin is
// linked from the same bindings, and its link fails unless its glue is the same file
// (SHARED_GLUE in cpp/wasm/CMakeLists.txt).
import simdWasmUrl from '@poslab-wasm/poslab.wasm?url';
import relaxedWasmUrl from '@poslab-wasm-relaxed/poslab.wasm?url';
import { simdBuild } from '../core/simd-build.js';

/** 'relaxed' or 'simd': which build CORE_WASM_URL is. */
export const CORE_BUILD = simdBuild();

export const CORE_WASM_URL = CORE_BUILD === 'relaxed' ? relaxedWasmUrl : simdWasmUrl;
