// The language-model job (on a GPT-2 checkpoint) and the chunked reader on the built
// poslab-lm module (as the worker runs them): a tiny checkpoint read from a Blob in small
// pieces gives the same model as reading it whole, every map is causal with rows summing to
// 1, a swapped position method says so.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGpt2Lab } from '../../web/src/core/poslab.js';
import { loadCheckpoint } from '../../web/src/lm/loading.js';
import { lm, lmFree, lmLoad } from '../../web/src/worker/jobs/lm.js';
import { encodeSafetensors, tinyGpt2Tensors } from '../helpers/safetensors.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasm = path.join(root, 'build/wasm/simd/poslab-lm.wasm');
const TINY = { vocab_size: 50257, n_positions: 64, n_embd: 32, n_layer: 2, n_head: 4, layer_norm_epsilon: 1e-5 };
let lab;

beforeAll(async () => {
  if (!fs.existsSync(wasm))
    throw new Error('build/wasm/simd/poslab-lm.wasm is missing: build the wasm modules first (npm run build:wasm)');
  lab = await createGpt2Lab({ variant: 'simd', wasmBinary: fs.readFileSync(wasm) });
});
afterAll(() => lmFree());

const checkpoint = (dtype) => new Blob([encodeSafetensors(tinyGpt2Tensors(TINY, 3, dtype))]);

describe('Language-model job on the wasm module', () => {
  it('LmCore.ChunkedReadEqualsTheWholeFile', async () => {
    const blob = checkpoint('F16');
    const whole = await loadCheckpoint(lab, blob, { config: TINY, chunkBytes: blob.size });
    const pieces = [];
    const chunked = await loadCheckpoint(lab, blob, {
      config: TINY,
      chunkBytes: 40009, // cuts tensors anywhere
      onProgress: (p) => pieces.push(p.received),
    });
    expect(pieces.length).toBeGreaterThan(50);
    expect(chunked.dtype).toBe('F16');
    const ids = [15496, 995, 11, 23748, 3797];
    const a = whole.forward(ids, { trace: false });
    const b = chunked.forward(ids, { trace: false });
    expect(Array.from(b.topIds)).toEqual(Array.from(a.topIds));
    expect(b.logits.data).toEqual(a.logits.data);
    whole.delete();
    chunked.delete();
  });

  it('LmCore.JobMapsAreCausalAndSumToOne', async () => {
    const loaded = await lmLoad(lab, {
      model: new File([checkpoint('F32')], 'model.safetensors'),
      config: new File([JSON.stringify(TINY)], 'config.json'),
    });
    expect(loaded.model).toMatchObject({ kind: 'file', dtype: 'F32' });
    expect(loaded.model.config.parameters.total).toBe(loaded.model.bytes / 4);
    const source = { kind: 'file', key: loaded.model.key };
    const r = await lm(lab, { text: 'Hello world, hello cat', position: 'learned', source });
    expect([r.layers, r.heads, r.ids.length]).toEqual([2, 4, 5]);
    for (const m of Object.values(r.heatmaps)) {
      for (let i = 0; i < 5; i++) {
        let sum = 0;
        for (let j = 0; j < 5; j++) {
          const w = m.data[i * 5 + j];
          if (j > i) expect(w).toBe(0);
          sum += w;
        }
        expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
      }
    }
    expect(r.top.ids).toHaveLength(10);
    expect(r.top.probs[0]).toBeGreaterThanOrEqual(r.top.probs[9]);
    const rope = await lm(lab, { text: 'Hello world', position: 'rope', source });
    expect(rope.position).toBe('rope');
    expect(rope.positionNote).not.toBe(r.positionNote);
    await expect(lm(lab, { text: 'x '.repeat(80), position: 'learned', source })).rejects.toThrow(/n_positions = 64/);
  });

  it('LmCore.TokensTheModelCannotReadNameTheirField', () => {
    // The JS API names the field the core's own message leaves out, so the Models view puts
    // it beside the text (registry: tokens → text) without reading the message.
    const model = lab.gpt2Random({ config: { ...TINY, vocab_size: 100, n_positions: 16 } });
    const refusal = (tokens) => {
      try {
        model.forward(tokens);
      } catch (e) {
        return [e.name, e.field, e.message];
      }
      return null;
    };
    try {
      expect(refusal(Array(17).fill(1))).toEqual(['PosLabError', 'tokens', '17 tokens exceed n_positions 16']);
      expect(refusal([1, 100])).toEqual([
        'PosLabError',
        'tokens',
        'token 100 at position 1 is outside the vocabulary [0, 100)',
      ]);
      expect(refusal([])).toEqual(['PosLabError', 'tokens', 'GPT-2 needs at least one token']);
      expect(refusal([1, 99])).toBeNull();
    } finally {
      model.delete();
    }
  });

  it('LmCore.ErrorsNameTheFileAndTensor', async () => {
    const bytes = encodeSafetensors(tinyGpt2Tensors(TINY, 3, 'F32').filter((t) => t.name !== 'h.1.ln_1.weight'));
    await expect(
      lmLoad(lab, {
        model: new File([bytes], 'model.safetensors'),
        config: new File([JSON.stringify(TINY)], 'config.json'),
      }),
    ).rejects.toThrow(/model\.safetensors: .*h\.1\.ln_1\.weight/);
    const full = encodeSafetensors(tinyGpt2Tensors(TINY, 3, 'F32'));
    await expect(
      lmLoad(lab, { model: new File([full.subarray(0, full.length >> 1)], 'model.safetensors'), config: null }),
    ).rejects.toThrow(/model\.safetensors/);
  });
});
