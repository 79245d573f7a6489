// Which SIMD build of a wasm module this engine should run: 'relaxed' (the GEMM and attention
// products on f32x4.relaxed_madd, build/wasm/*/relaxed) where it validates a tiny module holding
// that instruction, else 'simd' (every engine PosLab supports runs SIMD128). Chromium has relaxed
// SIMD on since 114; Node 20 only with --experimental-wasm-relaxed-simd.

// (func (param v128 v128 v128) (result v128) local.get 0 local.get 1 local.get 2 f32x4.relaxed_madd)
// prettier-ignore
const RELAXED_MADD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
  0x01, 0x08, 0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b, // types: (v128 v128 v128) → v128
  0x03, 0x02, 0x01, 0x00, // functions: one of type 0
  0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, // code: its body
  0xfd, 0x85, 0x02, 0x0b, // f32x4.relaxed_madd (0xfd 0x105), end
]);

let relaxed = null;

/** Whether this engine accepts f32x4.relaxed_madd (validated once, then remembered). */
export function hasRelaxedSimd() {
  if (relaxed === null) {
    try {
      relaxed = WebAssembly.validate(RELAXED_MADD_PROBE);
    } catch {
      relaxed = false;
    }
  }
  return relaxed;
}

/** 'relaxed' where the engine has relaxed SIMD, else 'simd'. */
export const simdBuild = () => (hasRelaxedSimd() ? 'relaxed' : 'simd');

/** The probe's bytes, for tests. */
export const RELAXED_PROBE_BYTES = RELAXED_MADD_PROBE;
