// The Long context job on the built language-model module (as the worker runs it, against the
// JS API directly) and its pure helpers: the curves are the model's own losses by position
// for each scaling, from the sample text (or the user's) cut at times × the trained context.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { SAMPLE_SOURCE, SAMPLE_TEXT } from '../../web/src/content/long-context-sample.js';
import { createGpt2Lab } from '../../web/src/core/poslab.js';
import { loadTokenizer } from '../../web/src/lm/tokenizer.js';
import {
  etaText,
  LONG_CONTEXT_METHODS,
  longContext,
  movingAverage,
  planLength,
  RANDOM_MODELS,
} from '../../web/src/worker/jobs/long-context.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasm = path.join(root, 'build/wasm/simd/poslab-lm.wasm');

describe('pure helpers', () => {
  test('movingAverage: centred window, shrinking at the ends; w ≤ 1 copies', () => {
    const x = Float32Array.from([1, 2, 3, 4, 5]);
    expect(Array.from(movingAverage(x, 1))).toEqual([1, 2, 3, 4, 5]);
    expect(Array.from(movingAverage(x, 3))).toEqual([1.5, 2, 3, 4, 4.5]);
    expect(Array.from(movingAverage(x, 100))).toEqual([3, 3, 3, 3, 3]);
    expect(movingAverage(new Float32Array(0), 5).length).toBe(0);
  });

  test('planLength: times × N when the text is long enough, else the text with a note', () => {
    expect(planLength(12000, 2048, 4)).toEqual({ T: 8192, note: '' });
    const short = planLength(5000, 2048, 4);
    expect(short.T).toBe(5000);
    expect(short.note).toMatch(/5000 tokens, fewer than 4 × 2048/);
    expect(() => planLength(1, 64, 4)).toThrow(/at least 2 tokens/);
  });

  test('etaText: from the steps done', () => {
    expect(etaText(0, 5, 1000)).toBe('');
    expect(etaText(1, 5, 10_000)).toBe('about 40 s left');
    expect(etaText(2, 5, 240_000)).toBe('about 6 min left');
    expect(etaText(5, 5, 1000)).toBe('');
  });

  test('the sample is the two licences verbatim, long enough for 4 × 2048 tokens, with its source', async () => {
    const gpl3 = fs.readFileSync(path.join(root, 'web/src/content/licences/gpl-3.0.txt'), 'utf8');
    expect(SAMPLE_TEXT.startsWith(gpl3)).toBe(true);
    expect(gpl3).toMatch(/Everyone is permitted to copy and distribute verbatim copies/);
    expect(SAMPLE_SOURCE).toMatch(/base-files/);
    const tok = await loadTokenizer();
    expect(tok.encode(SAMPLE_TEXT).length).toBeGreaterThan(4 * 2048);
  });
});

describe('the longContext job (tiny random GPT-NeoX)', () => {
  let lab;
  beforeAll(async () => {
    lab = await createGpt2Lab({ variant: 'simd', wasmBinary: fs.readFileSync(wasm) });
  });

  test('one curve per scaling, each the model’s own losses by position, with progress', async () => {
    const seen = [];
    const r = await longContext(lab, { model: 'tiny', times: 4, factor: 4 }, { progress: (d) => seen.push(d) });
    expect(r.methods).toEqual(LONG_CONTEXT_METHODS);
    expect([r.N, r.T]).toEqual([64, 256]);
    expect(r.random).toBe(true);
    expect(seen.filter((d) => d.phase === 'run').map((d) => `${d.index + 1}/${d.count} ${d.method}`)).toEqual([
      '1/6 none',
      '2/6 linear',
      '3/6 ntk',
      '4/6 dynamic',
      '5/6 yarn',
      '6/6 llama3',
    ]);
    // Each curve is handed over as soon as its pass ends, before the next pass starts (the view
    // draws it at once), with the trained context and length the view's dashed line needs.
    const order = seen.filter((d) => d.phase !== 'model').map((d) => `${d.phase} ${d.method}`);
    expect(order.slice(0, 4)).toEqual(['run none', 'curve none', 'run linear', 'curve linear']);
    const curves = seen.filter((d) => d.phase === 'curve');
    expect(curves.map((d) => d.method)).toEqual(LONG_CONTEXT_METHODS);
    for (const d of curves) {
      expect([d.N, d.T]).toEqual([64, 256]);
      expect(Array.from(d.losses)).toEqual(Array.from(r.losses[d.method]));
    }
    // Independent values: the same model through the API, on the sample's first 256 tokens.
    const tok = await loadTokenizer();
    const tokens = tok.encode(SAMPLE_TEXT).slice(0, 256);
    const { label, random, ...choice } = RANDOM_MODELS.tiny;
    const model = lab.gptNeoxRandom({ ...choice, seed: 0 });
    try {
      for (const scaling of LONG_CONTEXT_METHODS) {
        expect(r.losses[scaling].length).toBe(255);
        const want = model.forward(tokens, {
          logits: false,
          lossByPosition: true,
          rope: { scaling, factor: scaling === 'none' ? 1 : 4 },
        }).losses.data;
        expect(Array.from(r.losses[scaling])).toEqual(Array.from(want));
      }
      // Inside the trained context linear and none differ (the angles are divided by f)...
      expect(r.losses.linear).not.toEqual(r.losses.none);
      // ...while dynamic only rescales past it: with S = 256 > N it differs too.
      expect(r.losses.dynamic).not.toEqual(r.losses.none);
    } finally {
      model.delete();
    }
    // The same request again comes from the kept curves, without recomputing.
    const again = await longContext(lab, { model: 'tiny', times: 4, factor: 4 });
    expect(again.cached).toBe(true);
    expect(Array.from(again.losses.yarn)).toEqual(Array.from(r.losses.yarn));
  });

  // The shipped model (docs/lab.md): trained on the sample's first 90% with a context of 64,
  // read on the held-out tenth. Within its context it predicts bytes well below ln 256 = 5.55;
  // past it, unscaled, its loss rises, and NTK stretching takes back part of that rise.
  test('the lab’s trained byte-level RoPE model: its curves on text it never trained on', async () => {
    const r = await longContext(lab, { model: 'lab-rope', times: 4, factor: 4 });
    expect([r.N, r.T, r.random, r.unit]).toEqual([64, 256, false, 'bytes']);
    expect(r.source).toMatch(/held-out tenth/);
    for (const m of LONG_CONTEXT_METHODS) expect(r.losses[m].length, m).toBe(256);
    const mean = (a, from, to) => a.slice(from, to).reduce((x, y) => x + y, 0) / (to - from);
    const inside = mean(r.losses.none, 0, 64);
    expect(inside).toBeLessThan(2.2);
    const past = mean(r.losses.none, 128, 256);
    expect(past).toBeGreaterThan(inside + 0.5);
    expect(mean(r.losses.ntk, 128, 256)).toBeLessThan(past);
    await expect(longContext(lab, { model: 'lab-rope', times: 4, factor: 4, text: 'a' })).rejects.toMatchObject({
      field: 'text',
    });
  });

  // Retrained on the page (a training worker's checkpoint, here the API's): its curves are on
  // the held-out tenth of the text it trained on, and say so.
  test('the lab’s model retrained on the user’s text reads that text’s held-out tenth', async () => {
    const { createTrainLab } = await import('../../web/src/core/train.js');
    const train = await createTrainLab({
      wasmBinary: fs.readFileSync(path.join(root, 'build/wasm/simd/poslab-train.wasm')),
    });
    let text = '';
    for (let i = 0; text.length < 3000; i++) text += `line ${i % 31} of a text to retrain on\n`;
    const run = train.createRun({
      task: 'text',
      position: 'rope',
      trainLen: 64,
      testLen: 64,
      steps: 5,
      text: new TextEncoder().encode(text),
    });
    run.step(5);
    const retrained = { checkpoint: run.checkpoint(), trainedOn: 'text', text, steps: 5, id: 1 };
    run.dispose();
    const r = await longContext(lab, { model: 'lab-rope', times: 2, factor: 2, methods: ['none', 'yarn'], retrained });
    expect([r.N, r.T]).toEqual([64, 128]);
    expect(r.model).toMatch(/retrained here \(5 steps on your text/);
    expect(r.source).toMatch(/held-out tenth of your text/);
    expect(r.textTokens).toBe(300); // a tenth of 3000 bytes
  });

  test('a tiny Llama: the same curves as its own forward, llama3 among them', async () => {
    const r = await longContext(lab, { model: 'tiny-llama', times: 2, factor: 4, methods: ['none', 'llama3'] });
    expect([r.N, r.T, r.random]).toEqual([64, 128, true]);
    expect(r.model).toMatch(/tiny Llama/);
    const tokens = (await loadTokenizer()).encode(SAMPLE_TEXT).slice(0, 128);
    const { label, random, ...choice } = RANDOM_MODELS['tiny-llama'];
    const model = lab[random]({ ...choice, seed: 0 });
    try {
      const want = model.forward(tokens, {
        logits: false,
        lossByPosition: true,
        rope: { scaling: 'llama3', factor: 4 },
      }).losses.data;
      expect(Array.from(r.losses.llama3)).toEqual(Array.from(want));
      expect(r.losses.llama3).not.toEqual(r.losses.none);
    } finally {
      model.delete();
    }
  });

  test('a GPT-2 checkpoint is refused: it learns its positions', async () => {
    const files = {
      weights: new File([new Uint8Array(16)], 'model.safetensors'),
      config: new File([JSON.stringify({ model_type: 'gpt2' })], 'config.json'),
    };
    await expect(longContext(lab, { model: 'file', files, times: 2, factor: 2 })).rejects.toMatchObject({
      field: 'model',
      message: expect.stringMatching(/GPT-2 learns its positions/),
    });
  });

  test('the user’s text, a subset of methods, a short text noted', async () => {
    const r = await longContext(lab, {
      model: 'tiny',
      times: 2,
      factor: 2,
      text: 'one two three four five six',
      methods: ['none', 'yarn'],
    });
    expect(r.methods).toEqual(['none', 'yarn']);
    expect(r.T).toBe(r.textTokens);
    expect(r.note).toMatch(/fewer than 2 × 64/);
    expect(r.source).toBe('your text');
  });

  test('errors carry the setting they are about, and the job works after them', async () => {
    await expect(longContext(lab, { model: 'tiny', times: 4, factor: 0.5 })).rejects.toMatchObject({ field: 'factor' });
    await expect(longContext(lab, { model: 'gpt-9', times: 4, factor: 2 })).rejects.toMatchObject({ field: 'model' });
    await expect(longContext(lab, { model: 'file', times: 4, factor: 2 })).rejects.toMatchObject({ field: 'model' });
    await expect(longContext(lab, { model: 'tiny', times: 4, factor: 2, text: 'a' })).rejects.toMatchObject({
      field: 'text',
    });
    await expect(longContext(lab, { model: 'tiny', times: 4, factor: 2, methods: ['xpos'] })).rejects.toMatchObject({
      field: 'methods',
    });
    const r = await longContext(lab, { model: 'tiny', times: 1, factor: 2, methods: ['none'] });
    expect(r.T).toBe(64);
  });
});
