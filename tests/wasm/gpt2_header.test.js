// A checkpoint header with tens of thousands of entries, its config read off the header (the
// playground's path when no config.json is picked): judged in linear time. Reading the config
// once scanned the header per layer; 20 000 entries blocked the browser's loader for 17.5 s.
// The 5 s bound is a hang guard, not a speed target (this takes milliseconds).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { encodeSafetensors } from '../helpers/safetensors.js';
import { modulePath, repoRoot, VARIANTS } from './helpers/paths.js';

// wte (0, 64): an empty vocabulary, refused once the layers are counted; then `blocks`
// zero-size h.N.ln_1.weight entries, each one more layer to count.
function manyEntryCheckpoint(blocks) {
  const empty = new Float32Array(0);
  const tensors = [
    { name: 'wte.weight', shape: [0, 64], data: empty },
    { name: 'wpe.weight', shape: [16, 64], data: new Float32Array(16 * 64) },
  ];
  for (let i = 0; i < blocks; i++) tensors.push({ name: `h.${i}.ln_1.weight`, shape: [0], data: empty });
  return encodeSafetensors(tensors);
}

describe.each(VARIANTS)('GPT-2 checkpoint header (%s)', (variant) => {
  test('Gpt2Header.TwentyThousandEntriesAreJudgedInLinearTime', async () => {
    const { createGpt2Lab, PosLabError } = await import(path.join(repoRoot, 'web/src/core/poslab.js'));
    const wasm = modulePath(variant, 'poslab-lm');
    const lab = await createGpt2Lab({ variant, wasmBinary: fs.readFileSync(wasm) });
    const bytes = manyEntryCheckpoint(20000);
    const name = 'many.safetensors';
    const N = lab.safetensorsHeaderLength(bytes.subarray(0, 8), bytes.length, name);
    const start = performance.now();
    let error = null;
    try {
      lab.gpt2Loader({ header: bytes.subarray(0, 8 + N), fileSize: bytes.length, name }).delete();
    } catch (e) {
      error = e;
    }
    const seconds = (performance.now() - start) / 1000;
    expect(error).toBeInstanceOf(PosLabError);
    expect(error.message).toMatch(/many\.safetensors: vocab_size must be positive/);
    expect(seconds).toBeLessThan(5);
  });
});
