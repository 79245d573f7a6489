// Defence in depth: the embind layer validates again what the JS wrapper already checks, so
// a caller that bypasses the wrapper still gets an error, never a truncated size or garbage.
// This reaches below the public API (web/src/core/load.js and the raw signatures of
// cpp/wasm/bindings.cpp): update it with them.
import fs from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { VARIANTS, wasmPath, wrapperPath } from './helpers/paths.js';

const f32 = (n) => new Float32Array(n);
const tensor = (shape, data = f32(shape.reduce((a, b) => a * b, 1))) => ({ data, shape });
const PE_2x4 = Float32Array.from([0, 1, 0, 1, Math.sin(1), Math.cos(1), Math.sin(0.01), Math.cos(0.01)]);
const qkv = () => [tensor([2, 4]), tensor([3, 4]), tensor([3, 4])];

// [what, (raw module) => result, pattern the { error } message must match]
const RAW_BAD_INPUTS = [
  ['sinusoidal NaN length', (m) => m.sinusoidal(NaN, 8, 10000, 'interleaved', 0), /length/],
  [
    'sinusoidal non-integer length (embind would truncate it)',
    (m) => m.sinusoidal(3.7, 8, 10000, 'interleaved', 0),
    /length/,
  ],
  ['sinusoidal negative length', (m) => m.sinusoidal(-1, 8, 10000, 'interleaved', 0), /length/],
  ['sinusoidal odd dim', (m) => m.sinusoidal(4, 7, 10000, 'interleaved', 0), /dim/],
  ['sinusoidal NaN base', (m) => m.sinusoidal(4, 8, NaN, 'interleaved', 0), /base/],
  ['sinusoidal over the cap', (m) => m.sinusoidal(2 ** 20, 2 ** 10, 10000, 'interleaved', 0), /limit/],
  ['rope data length != product(shape)', (m) => m.rope(tensor([2, 4], f32(7)), 0, {}), /7/],
  ['rope number[] data', (m) => m.rope(tensor([1, 2], [1, 2]), 0, {}), /Float32Array/],
  ['rope non-integer shape', (m) => m.rope(tensor([2, 4.5], f32(9)), 0, {}), /shape/],
  ['rope factor a string', (m) => m.rope(tensor([2, 4]), 0, { scaling: 'linear', factor: '2' }), /factor/],
  [
    'attention q with NaN',
    (m) => m.attention(tensor([1, 4], Float32Array.of(NaN, 0, 0, 0)), tensor([1, 4]), tensor([1, 4]), {}),
    /q/,
  ],
  ['attention boolean[] key padding', (m) => m.attention(...qkv(), { keyPadding: [true, false, false] }), /Uint8Array/],
  ['attention NaN scale', (m) => m.attention(...qkv(), { scale: NaN }), /scale/],
  ['learned negative seed', (m) => m.learned(4, 4, -1, 0.02), /seed/],
];

describe.each(VARIANTS)('%s raw embind layer', (variant) => {
  let m;
  beforeAll(async () => {
    const { loadModule } = await import(wrapperPath.replace(/poslab\.js$/, 'load.js'));
    m = await loadModule({ variant, wasmBinary: fs.readFileSync(wasmPath(variant)) });
  });

  test.each(RAW_BAD_INPUTS)('%s comes back as { error }', (what, call, pattern) => {
    const result = call(m);
    expect(result?.error, `no error from the core for: ${what}`).toMatch(pattern);
    // And the module still works: PE (2, 4) has frequencies 1 and 10000^(−1/2) = 0.01.
    expect(m.sinusoidal(2, 4, 10000, 'interleaved', 0).data).toEqual(PE_2x4);
  });
});
