// The SIMD build must really run SIMD128 code in its hot loops (attention, RoPE, the
// sinusoidal table), and the scalar build must contain none, or the benchmark's SIMD/scalar
// ratio measures nothing. Function names come from the build's name section or symbol map.
import fs from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { count, functionsOf, simdCount } from './helpers/disassembly.js';
import { wasmPath } from './helpers/paths.js';

const missing = (variant) => `${wasmPath(variant)} is missing: build the wasm modules first (npm run build:wasm).`;

// Each fast path: the functions that hold its loops, matched on mangled or demangled names
// (poslab::fast::attention ↔ _ZN6poslab4fast9attention…), and opcodes its loops need. The
// optimiser may inline a fast path into the binding that calls it (RoPE's into rope_js since
// the build uses WebAssembly exceptions; attention's into attention_js's guarded call since its
// result's shapes are made out of line), so that binding counts as holding the loops.
const HOT_PATHS = [
  {
    op: 'attention',
    name: /fast.{0,30}(attention|softmax_row|scores_block|output_block)|wasm.{0,60}::attention_js\(/,
    needs: ['f32x4.mul', 'f32x4.add'],
  },
  { op: 'rope', name: /fast.{0,30}(rope_apply|RotatePairs)|wasm.{0,40}::rope_js\(/, needs: ['f32x4.mul'] },
  { op: 'sinusoidal', name: /fast.{0,30}(sinusoidal_table|CosSin|AngleTable)/, needs: ['f32x4.mul'] },
];

describe('SIMD build', () => {
  let functions;
  beforeAll(() => {
    if (!fs.existsSync(wasmPath('simd'))) throw new Error(missing('simd'));
    functions = functionsOf(wasmPath('simd'));
  });

  test('has function names (name section or symbol map) to find the hot loops by', () => {
    const named = functions.filter((f) => f.name).length;
    expect(
      named,
      'no function names in build/wasm/simd: link with --profiling-funcs (name section) or --emit-symbol-map',
    ).toBeGreaterThan(0);
  });

  test.each(HOT_PATHS)('the $op fast path runs f32x4/v128 instructions', ({ op, name, needs }) => {
    const hot = functions.filter((f) => f.name && name.test(f.name));
    expect(
      hot.map((f) => f.name),
      `no function of the ${op} fast path found by name ${name}`,
    ).not.toEqual([]);
    const simd = hot.reduce((n, f) => n + count(f, 'f32x4.'), 0);
    expect(simd, `${op}: no f32x4 instruction in ${hot.map((f) => f.name).join(', ')}`).toBeGreaterThan(0);
    for (const opcode of needs) {
      const n = hot.reduce((m, f) => m + (f.ops.get(opcode) ?? 0), 0);
      expect(n, `${op}: no ${opcode} in its functions`).toBeGreaterThan(0);
    }
  });

  test('softmax is vectorised where it is a function of its own', () => {
    const softmax = functions.filter((f) => f.name && /softmax_row/.test(f.name));
    for (const f of softmax) expect(simdCount(f), f.name).toBeGreaterThan(0);
  });
});

describe('scalar build', () => {
  test('contains no SIMD128 instruction', () => {
    if (!fs.existsSync(wasmPath('scalar'))) throw new Error(missing('scalar'));
    const functions = functionsOf(wasmPath('scalar'));
    expect(functions.length).toBeGreaterThan(0);
    const withSimd = functions.filter((f) => simdCount(f) > 0).map((f) => f.name ?? `func[${f.index}]`);
    expect(withSimd).toEqual([]);
  });
});
