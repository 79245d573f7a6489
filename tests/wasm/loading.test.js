// Loading: both builds load in Node from their bytes, and misuse of createPosLab is a
// PosLabError, not an Emscripten abort.
import fs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { loadWrapper } from './helpers/lab.js';
import { VARIANTS, wasmPath } from './helpers/paths.js';

describe('createPosLab', () => {
  test.each(VARIANTS)('loads the %s build from an ArrayBuffer too', async (variant) => {
    const { createPosLab } = await loadWrapper();
    const bytes = fs.readFileSync(wasmPath(variant));
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const lab = await createPosLab({ variant, wasmBinary: buffer });
    expect(lab.sinusoidal({ length: 1, dim: 2 }).data).toEqual(Float32Array.of(0, 1));
  });

  test('refuses an unknown variant', async () => {
    const { createPosLab, PosLabError } = await loadWrapper();
    await expect(createPosLab({ variant: 'avx', wasmBinary: new Uint8Array(8) })).rejects.toThrow(PosLabError);
    await expect(createPosLab({ variant: 'avx', wasmBinary: new Uint8Array(8) })).rejects.toThrow(/variant/);
  });

  test.each(VARIANTS)('in Node, the %s build reads its own .wasm (no wasmBinary needed)', async (variant) => {
    const { createPosLab } = await loadWrapper();
    const lab = await createPosLab({ variant });
    expect(lab.sinusoidal({ length: 2, dim: 2 }).data).toEqual(
      Float32Array.of(0, 1, Math.fround(Math.sin(1)), Math.fround(Math.cos(1))),
    );
  });

  test('refuses a wasmBinary of the wrong type', async () => {
    const { createPosLab, PosLabError } = await loadWrapper();
    await expect(createPosLab({ variant: 'simd', wasmBinary: 'poslab.wasm' })).rejects.toThrow(PosLabError);
  });
});
