// Tolerance policy of the WASM suite (docs/ARCHITECTURE.md section 2, cpp/include/poslab/fast/fast.hpp):
// every element must satisfy |wasm − native| ≤ 1e-6 + 1e-6·|native|. The native CLI (double
// reference, stored as float32) is the oracle; the wasm SIMD fast paths run in float32 and
// the reference paths in double, so one ulp-scale bound covers both. Integer results (bucket
// and index tables) must match exactly; non-finite native values must match exactly too.
//
// FMA (the relaxed variant, build/wasm/simd/relaxed): its GEMM and attention products use
// f32x4.relaxed_madd, which the engine may run fused (one rounding: x86 with FMA, ARM) or as a
// multiply and an add (two roundings, as the SIMD build). Either way each product is a float32
// sum whose error stays within the same γ_K bound (cpp/include/poslab/fast/gemm.hpp), so the
// relaxed build is held to exactly the bounds the SIMD build is, against the same double
// reference (the native CLI, or its --precision double where native float may itself fuse),
// every suite running it beside the SIMD build (VARIANTS). No bound is loosened for it, and the
// two builds are never compared with each other bit for bit: fused and unfused roundings differ
// in the last bits, which is expected (relaxed_simd.test.js checks that they do differ on an FMA
// CPU, so the relaxed products are known to have run fused there).
export const ATOL = 1e-6;
export const RTOL = 1e-6;

const isInteger = (data) => data instanceof Int32Array || data instanceof Uint8Array;

// Row-major multi-index of flat index i, for messages.
function unravel(i, shape) {
  const idx = [];
  for (let a = shape.length - 1; a >= 0; a--) {
    idx.unshift(i % shape[a]);
    i = Math.floor(i / shape[a]);
  }
  return idx;
}

// The worst element of actual vs expected (by how far past its allowed error it is), and
// how many elements fail. Returns null when the shapes already differ.
export function worstElement(actual, expected, { atol = ATOL, rtol = RTOL } = {}) {
  const exact = isInteger(expected.data);
  let worst = null;
  let failures = 0;
  for (let i = 0; i < expected.data.length; i++) {
    const a = actual.data[i];
    const e = expected.data[i];
    let excess;
    if (!Number.isFinite(e) || !Number.isFinite(a)) {
      excess = Object.is(a, e) || (Number.isNaN(a) && Number.isNaN(e)) ? -1 : Infinity;
    } else {
      const allowed = exact ? 0 : atol + rtol * Math.abs(e);
      excess = Math.abs(a - e) - allowed;
    }
    if (excess > 0) failures++;
    if (worst === null || excess > worst.excess) worst = { i, actual: a, expected: e, excess };
  }
  return { worst, failures };
}

// Throws with the shape, dtype or worst element when actual is not within tolerance.
export function assertClose(actual, expected, label = 'result', options = {}) {
  if (!actual || !actual.data || !Array.isArray(actual.shape)) {
    throw new Error(`${label}: expected a {data, shape} tensor, got ${describe(actual)}`);
  }
  if (JSON.stringify(actual.shape) !== JSON.stringify(expected.shape)) {
    throw new Error(`${label}: shape [${actual.shape}] != native [${expected.shape}]`);
  }
  if (isInteger(expected.data) !== isInteger(actual.data) && !options.anyType) {
    throw new Error(`${label}: dtype ${actual.data.constructor.name} != native ${expected.data.constructor.name}`);
  }
  if (actual.data.length !== expected.data.length) {
    throw new Error(`${label}: ${actual.data.length} values for shape [${actual.shape}]`);
  }
  const { worst, failures } = worstElement(actual, expected, options);
  if (failures > 0) {
    const at = unravel(worst.i, expected.shape).join(', ');
    throw new Error(
      `${label}: ${failures}/${expected.data.length} elements out of tolerance; worst at [${at}]: ` +
        `wasm ${worst.actual} vs native ${worst.expected} (|diff| ${Math.abs(worst.actual - worst.expected)})`,
    );
  }
}

export function assertScalarClose(actual, expected, label = 'value') {
  const ok = Number.isFinite(actual) && Math.abs(actual - expected) <= ATOL + RTOL * Math.abs(expected);
  if (!ok) throw new Error(`${label}: wasm ${actual} vs native ${expected}`);
}

function describe(v) {
  if (v === null || v === undefined) return String(v);
  if (typeof v !== 'object') return typeof v;
  return `{${Object.keys(v).join(', ')}}`;
}
