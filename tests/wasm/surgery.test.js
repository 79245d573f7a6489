// Position surgery through the wasm modules in Node against the native CLI on the same
// checkpoints and texts. `poslab surgery` (every sweep: bands, layers, heads with the lens's
// roles beside them, base; windows with the interval over positions and over windows; a
// scaling in place of the config's) against the language models' surgery() on a tiny random
// Llama and GPT-NeoX (double: the suite's 1e-6 + 1e-6·|native|, compare.js) and the training
// module's textSurgery() on the lab's shipped byte-level RoPE model (float only: 1e-5, as the
// lens's lab test). The single sweep, which the CLI leaves to `poslab lm`, against `poslab lm
// --loss-by-position` with the surgery flags; the `surgery` option of lens, lensMap and
// textLens against `poslab lens` and `poslab lm --trace` with them. onProgress, the heap, and
// bad options refused with their field, by the JS API and by the raw bindings.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { requireCli, runCli } from './helpers/cli.js';
import { assertClose } from './helpers/compare.js';
import { TINY_LLAMA as LLAMA, TINY_NEOX, writeTinyLm } from './helpers/gpt_neox.js';
import { loadInChunks, loadLmLab, nativeLm } from './helpers/lm.js';
import { writeNpy } from './helpers/npy.js';
import { modulePath, repoRoot, scratchFiles, VARIANTS } from './helpers/paths.js';

// 40 tokens, past the trained context of 12: the change within and past it both exist.
const TOKENS = Array.from({ length: 40 }, (_, i) => (i * 37 + 11) % 100);
const LAB_CHECKPOINT = path.join(repoRoot, 'web/src/content/text-rope.safetensors');
// 300 bytes: past the lab model's trained context of 64.
const LAB_TEXT = new TextEncoder().encode(
  'The lab model reads bytes. Position surgery zeroes its rotation pairs, makes a layer or a head ' +
    'position-blind, or ablates a head, and measures the change in the next-byte loss within the ' +
    'trained context and past it. Each sweep runs the unmodified model once, then every single ' +
    'intervention of its kind, on the same text.',
);
const file = scratchFiles('poslab-surgery-wasm-');

// The Llama sweeps, double: each [label, surgery() options]; the CLI's flags follow from them.
const LLAMA_SWEEPS = [
  ['bands (16 groups of 1 pair)', { sweep: 'bands', seed: 3 }],
  ['bands of 2 pairs', { sweep: 'bands', group: 2 }],
  ['layers in 5 windows (the interval over positions)', { sweep: 'layers', window: 8 }],
  ['layers in 8 windows (the interval over windows)', { sweep: 'layers', window: 5, seed: 1 }],
  ['heads in 2 windows, with the lens', { sweep: 'heads', window: 20 }],
  ['heads in windows of 3, too short for the lens: no roles, a note', { sweep: 'heads', window: 3 }],
  ['base (the default bases)', { sweep: 'base' }],
  ['base (bases given)', { sweep: 'base', bases: [50, 1000, 1e6] }],
  ['bands with yarn in place of the config', { sweep: 'bands', rope: { scaling: 'yarn', factor: 2 } }],
];
const LAB_SWEEPS = [
  ['heads, with the lens', { sweep: 'heads' }],
  ['bands of 2 pairs', { sweep: 'bands', group: 2 }],
  ['layers in windows of 32', { sweep: 'layers', window: 32 }],
  ['bands with yarn × 4', { sweep: 'bands', rope: { scaling: 'yarn', factor: 4 } }],
];

// `poslab surgery`'s flags for surgery()'s options.
function surgeryFlags({ sweep, group, bases, window, seed, rope, precision }) {
  const flags = ['--sweep', sweep];
  if (group !== undefined) flags.push('--group', group);
  if (bases !== undefined) flags.push('--bases', bases.join(','));
  if (window !== undefined) flags.push('--window', window);
  if (seed !== undefined) flags.push('--seed', seed);
  if (precision !== undefined) flags.push('--precision', precision);
  if (rope) flags.push('--rope-scaling', rope.scaling, '--rope-factor', rope.factor);
  return flags;
}

// The surgery flags of `poslab lm` and `poslab lens` for a surgery option.
function interventionFlags(s) {
  const pairs = (list) => list.map(([a, b]) => `${a}:${b}`).join(',');
  const flags = [];
  if (s.ropeZeroPairs) flags.push('--rope-zero-pairs', pairs(s.ropeZeroPairs));
  if (s.nopeLayers) flags.push('--nope-layers', s.nopeLayers.join(','));
  if (s.nopeHeads) flags.push('--nope-heads', pairs(s.nopeHeads));
  if (s.ropeBase) flags.push('--rope-base', s.ropeBase);
  if (s.ablateHeads) flags.push('--ablate-heads', pairs(s.ablateHeads));
  return flags;
}

let runs = 0;
async function cli(command, args, ext = 'json') {
  const out = file(`${command}${runs++}.${ext}`);
  const { code, stderr } = await runCli([command, ...args, '-o', out]);
  if (code !== 0) throw new Error(`poslab ${command} ${args.join(' ')}: ${stderr}`);
  return JSON.parse(fs.readFileSync(out, 'utf8'));
}

/**
 * surgery.json against the wasm report: the same keys, strings, booleans and nulls (the
 * "weights" aside), every number within `atol + rtol·|native|`; a failure names the worst path.
 */
function expectSameReport(got, want, label, { atol = 1e-6, rtol = 1e-6 } = {}) {
  let worst = null;
  const walk = (g, w, at) => {
    if (typeof w === 'number') {
      expect(typeof g, `${label}: ${at}`).toBe('number');
      const excess = Math.abs(g - w) - (atol + rtol * Math.abs(w));
      if (!(excess <= 0) && (worst === null || !(excess <= worst.excess))) worst = { at, g, w, excess };
    } else if (Array.isArray(w)) {
      expect(Array.isArray(g), `${label}: ${at} is an array`).toBe(true);
      expect(g.length, `${label}: ${at}.length`).toBe(w.length);
      w.forEach((x, i) => walk(g[i], x, `${at}[${i}]`));
    } else if (w !== null && typeof w === 'object') {
      expect(Object.keys(g ?? {}).sort(), `${label}: ${at}'s keys`).toEqual(Object.keys(w).sort());
      for (const key of Object.keys(w)) if (`${at}.${key}` !== '.weights') walk(g[key], w[key], `${at}.${key}`);
    } else {
      expect(g, `${label}: ${at}`).toEqual(w);
    }
  };
  walk(got, want, '');
  if (worst) throw new Error(`${label}: ${worst.at}: wasm ${worst.g} vs native ${worst.w}`);
}

// A call's PosLabError (or raw { error }) field, or 'none'.
const fieldOf = (fn) => {
  try {
    const r = fn();
    return r?.error !== undefined ? r.field : 'none';
  } catch (e) {
    return e.field ?? `no field: ${e.message}`;
  }
};

const vec = (a) => ({ data: Float64Array.from(a), shape: [a.length] });
const mean = (a) => a.reduce((s, x) => s + x, 0) / a.length;

const ckpts = {};
const natives = { llama: [], neox: null, lab: [] };
beforeAll(async () => {
  requireCli();
  ckpts.llama = await writeTinyLm(file('llama'), { config: LLAMA, seed: 7 });
  ckpts.neox = await writeTinyLm(file('neox'), { config: TINY_NEOX, seed: 3 });
  const tokensFile = file('tokens.npy');
  writeNpy(tokensFile, { data: Int32Array.from(TOKENS), shape: [TOKENS.length] });
  const textFile = file('text.txt');
  fs.writeFileSync(textFile, LAB_TEXT);
  const model = (c) => ['--weights', c.weights, '--config', c.config, '--tokens-file', tokensFile];
  for (const [, options] of LLAMA_SWEEPS) {
    natives.llama.push(
      await cli('surgery', [...model(ckpts.llama), ...surgeryFlags({ ...options, precision: 'double' })]),
    );
  }
  natives.neox = await cli('surgery', [...model(ckpts.neox), ...surgeryFlags({ sweep: 'heads', precision: 'double' })]);
  for (const [, options] of LAB_SWEEPS) {
    natives.lab.push(
      await cli('surgery', ['--weights', LAB_CHECKPOINT, '--text-file', textFile, ...surgeryFlags(options)]),
    );
  }
}, 300_000);

describe.each(VARIANTS)('position surgery in the %s language-model module', (variant) => {
  let lab;
  let llama;
  beforeAll(async () => {
    lab = await loadLmLab(variant);
    llama = loadInChunks(lab, 'llamaLoader', ckpts.llama.bytes, 4096, { config: ckpts.llama.configText });
  });
  afterAll(() => llama?.delete());

  test.each(LLAMA_SWEEPS.map(([label, options], i) => [label, options, i]))(
    'Llama, %s: the report equals `poslab surgery` (double)',
    (label, options, i) => {
      const got = llama.surgery(TOKENS, { ...options, precision: 'double' });
      expectSameReport(got, natives.llama[i], `${variant} llama ${label}`);
    },
  );

  test('the heads sweep carries each head’s lens role; the windows and interval unit as asked', () => {
    const heads = llama.surgery(TOKENS, { sweep: 'heads', window: 20, precision: 'double' });
    expect(heads.windows).toBe(2);
    expect(heads.bootstrap.unit).toBe('positions');
    expect(heads.interventions).toHaveLength(2 * 4 * 2); // NoPE and ablated, each head
    for (const i of heads.interventions)
      expect(['sink', 'previous-token', 'induction', 'local', 'broad']).toContain(i.lens.role);
    const windows = llama.surgery(TOKENS, { sweep: 'layers', window: 5 });
    expect(windows.windows).toBe(8);
    expect(windows.bootstrap.unit).toBe('windows');
    expect(windows.trained_context).toBe(12);
  });

  test('GPT-NeoX (a partial rotation), the heads sweep: the report equals `poslab surgery` (double)', () => {
    const neox = loadInChunks(lab, 'gptNeoxLoader', ckpts.neox.bytes, 4096, { config: ckpts.neox.configText });
    try {
      expectSameReport(neox.surgery(TOKENS, { sweep: 'heads', precision: 'double' }), natives.neox, `${variant} neox`);
    } finally {
      neox.delete();
    }
  });

  test('the single sweep equals `poslab lm --loss-by-position` with and without the surgery flags', async () => {
    const surgery = { ropeZeroPairs: [[0, 1]], nopeHeads: [[1, 2]], ablateHeads: [[0, 1]] };
    const got = llama.surgery(TOKENS, { sweep: 'single', surgery, precision: 'double' });
    const lm = (flags) =>
      nativeLm(file, ckpts.llama, TOKENS, ['--loss-by-position', '--precision', 'double', ...flags]);
    const [plain, operated] = [(await lm([])).out.data, (await lm(interventionFlags(surgery))).out.data];
    assertClose(vec(got.baseline.loss_by_position), vec(plain), `${variant} single baseline`);
    const [one] = got.interventions;
    expect(one.kind).toBe('single');
    expect(one.params).toEqual({ rope_zero_pairs: [[0, 1]], nope_heads: [[1, 2]], ablate_heads: [[0, 1]] });
    assertClose(vec(one.loss_by_position), vec(operated), `${variant} single`);
    const deltas = Array.from(operated, (x, t) => x - plain[t]);
    assertClose(vec([one.delta_mean]), vec([mean(deltas)]), `${variant} single delta`);
    assertClose(vec([one.delta_within_context]), vec([mean(deltas.slice(0, 12))]), `${variant} within`);
    assertClose(vec([one.delta_past_context]), vec([mean(deltas.slice(12))]), `${variant} past`);
    // forward's surgery option is the same pass.
    const forward = llama.forward(TOKENS, { precision: 'double', logits: false, lossByPosition: true, surgery });
    assertClose(vec(forward.losses.data), vec(operated), `${variant} forward surgery`);
  });

  test('lens and lensMap with a surgery equal `poslab lens` and `poslab lm --trace` with its flags', async () => {
    const surgery = { nopeHeads: [[1, 2]], ropeZeroPairs: [[1, 2]] };
    const tokens = TOKENS.slice(0, 16);
    const flags = ['--weights', ckpts.llama.weights, '--config', ckpts.llama.config, '--tokens', tokens.join(',')];
    const want = await cli('lens', [...flags, '--period', 5, '--precision', 'double', ...interventionFlags(surgery)]);
    const got = llama.lens(tokens, { period: 5, precision: 'double', surgery });
    expect(got.heads.map((h) => h.role)).toEqual(want.heads.map((h) => h.role));
    got.heads.forEach((h, i) => {
      const w = want.heads[i];
      const scores = (x) => ['sink', 'previous_token', 'induction', 'local'].map((k) => x.scores[k]);
      assertClose(vec(scores(h)), vec(scores(w)), `${variant} lens head ${i}`);
      assertClose(vec(h.pair_energy), vec(w.pair_energy), `${variant} lens head ${i} pair energy`);
    });
    // The zeroed pair turns no more: the bands are read against the surgery's frequencies.
    assertClose(vec(got.rope_bands.inv_freq), vec(want.rope_bands.inv_freq), `${variant} lens inv_freq`);
    expect(got.rope_bands.inv_freq[1]).toBe(0);
    // lensMap: the float forward's map against the native double trace, as the float forward is judged.
    const traced = await nativeLm(file, ckpts.llama, tokens, ['--precision', 'double', ...interventionFlags(surgery)]);
    const map = llama.lensMap(tokens, { layer: 1, head: 2, surgery });
    const T = tokens.length;
    const head = traced.trace.attention_layer1.data.subarray(2 * T * T, 3 * T * T);
    assertClose({ data: map.attention, shape: [T, T] }, { data: head, shape: [T, T] }, `${variant} lensMap`, {
      atol: 1e-5,
      rtol: 0,
    });
    const plain = llama.lensMap(tokens, { layer: 1, head: 2 });
    expect(Array.from(plain.attention)).not.toEqual(Array.from(map.attention));
  });

  test('onProgress: after each pass group, done of total; what it throws stops the sweep', () => {
    const calls = [];
    const r = llama.surgery(TOKENS, { sweep: 'layers', onProgress: (done, total) => calls.push([done, total]) });
    const total = r.interventions.length + 1;
    expect(calls).toEqual(Array.from({ length: total }, (_, i) => [i + 1, total]));
    let seen = 0;
    const stop = new Error('enough');
    let error = null;
    try {
      llama.surgery(TOKENS, {
        sweep: 'heads',
        onProgress: () => {
          seen++;
          throw stop;
        },
      });
    } catch (e) {
      error = e;
    }
    expect(seen).toBe(1);
    expect(error.cause ?? error).toBe(stop);
    // The module keeps working, and a sweep leaves no allocation behind.
    const before = lab.liveHeapBytes();
    llama.surgery(TOKENS, { sweep: 'bands' });
    expect(lab.liveHeapBytes()).toBe(before);
  });

  test.each([
    [undefined, 'sweep'],
    [{}, 'sweep'],
    [{ sweep: 3 }, 'sweep'],
    [{ sweep: 'circles' }, 'sweep'],
    [{ sweep: 'bands', group: 1.5 }, 'group'],
    [{ sweep: 'bands', group: 99 }, 'group'],
    [{ sweep: 'layers', group: 2 }, 'group'],
    [{ sweep: 'bands', window: 1 }, 'window'],
    [{ sweep: 'bands', window: -2 }, 'window'],
    [{ sweep: 'bands', seed: -1 }, 'seed'],
    [{ sweep: 'base', bases: 'x' }, 'bases'],
    [{ sweep: 'base', bases: [1] }, 'bases'],
    [{ sweep: 'base', bases: [NaN] }, 'bases'],
    [{ sweep: 'layers', bases: [100] }, 'bases'],
    [{ sweep: 'single' }, 'surgery'],
    [{ sweep: 'single', surgery: null }, 'surgery'],
    [{ sweep: 'bands', surgery: { nopeLayers: [0] } }, 'surgery'],
    [{ sweep: 'single', surgery: { ropeZeroPairs: [[0, 9]] } }, 'ropeZeroPairs'],
    [{ sweep: 'single', surgery: { ropeZeroPairs: [[3, 1]] } }, 'ropeZeroPairs'],
    [{ sweep: 'single', surgery: { ropeZeroPairs: [1, 2] } }, 'ropeZeroPairs'],
    [{ sweep: 'single', surgery: { nopeLayers: [7] } }, 'nopeLayers'],
    [{ sweep: 'single', surgery: { nopeLayers: 0 } }, 'nopeLayers'],
    [{ sweep: 'single', surgery: { nopeHeads: [[0, 4]] } }, 'nopeHeads'],
    [{ sweep: 'single', surgery: { ropeBase: 0 } }, 'ropeBase'],
    [{ sweep: 'single', surgery: { ropeBase: 'big' } }, 'ropeBase'],
    [{ sweep: 'single', surgery: { ropeLocalBase: 1000 } }, 'ropeLocalBase'],
    [{ sweep: 'single', surgery: { ablateHeads: [[2, 0]] } }, 'ablateHeads'],
    [{ sweep: 'single', surgery: { colour: 1 } }, 'colour'],
    [{ sweep: 'bands', precision: 'half' }, 'precision'],
    [{ sweep: 'bands', rope: { scaling: 'warp' } }, 'scaling'],
    [{ sweep: 'bands', onProgress: 3 }, 'onProgress'],
    [{ sweep: 'bands', colour: 1 }, 'colour'],
  ])('surgery(tokens, %j) is refused naming %s', (options, field) => {
    expect(fieldOf(() => llama.surgery(TOKENS, options))).toBe(field);
  });

  test('bad tokens and bad lens options are refused with their field', () => {
    expect(fieldOf(() => llama.surgery([1], { sweep: 'layers' }))).toBe('tokens');
    expect(fieldOf(() => llama.surgery('abc', { sweep: 'layers' }))).toBe('tokens');
    expect(fieldOf(() => llama.lens(TOKENS, { surgery: { nopeLayers: [2] } }))).toBe('nopeLayers');
    expect(fieldOf(() => llama.lensMap(TOKENS, { surgery: { nopeHeads: [[0, 9]] } }))).toBe('nopeHeads');
    expect(fieldOf(() => llama.forward(TOKENS, { surgery: { ablateHeads: [[0]] } }))).toBe('ablateHeads');
  });

  test('the raw binding checks the options again, as { error, field }', async () => {
    const { loadModule } = await import(path.join(repoRoot, 'web/src/core/load.js'));
    const m = await loadModule({ variant, wasmBinary: fs.readFileSync(modulePath(variant, 'poslab-lm')) }, 'poslab-lm');
    const raw = m.llamaRandom(JSON.stringify(LLAMA), 7, 'F32').model;
    const viaApi = lab.llamaRandom({ config: LLAMA, seed: 7 });
    try {
      const ids = Int32Array.from(TOKENS);
      const text = raw.surgery(ids, { sweep: 'layers', precision: 'double' });
      expectSameReport(JSON.parse(text), viaApi.surgery(TOKENS, { sweep: 'layers', precision: 'double' }), 'raw');
      for (const [options, field] of [
        [{ sweep: 'single', surgery: { ropeZeroPairs: [[0]] } }, 'ropeZeroPairs'],
        [{ sweep: 'single', surgery: { nopeLayers: ['0'] } }, 'nopeLayers'],
        [{ sweep: 'single', surgery: { nopeHeads: [[0, 0.5]] } }, 'nopeHeads'],
        [{ sweep: 'single', surgery: { ropeBase: NaN } }, 'ropeBase'],
        [{ sweep: 'single', surgery: [] }, 'surgery'],
        [{ sweep: 'bands', window: 1.5 }, 'window'],
        [{ sweep: 'bands', group: '2' }, 'group'],
        [{ sweep: 'base', bases: [Infinity] }, 'bases'],
        [{ sweep: 'bands', onProgress: {} }, 'onProgress'],
        [{ sweep: 'bands', onProgress: () => false }, 'onProgress'],
        [{}, 'sweep'],
      ]) {
        expect(
          fieldOf(() => raw.surgery(ids, options)),
          JSON.stringify(options),
        ).toBe(field);
      }
      expect(fieldOf(() => raw.surgery(Array.from(ids), { sweep: 'bands' }))).toBe('tokens');
      expect(fieldOf(() => raw.lens(ids, { surgery: { nopeLayers: [9] } }))).toBe('nopeLayers');
    } finally {
      raw.delete();
      viaApi.delete();
    }
  });

  test('GPT-2 learns its positions: no surgery method, and lens and lensMap refuse the option', () => {
    const gpt2 = lab.gpt2Random({ config: { vocab_size: 100, n_positions: 32, n_embd: 32, n_layer: 2, n_head: 4 } });
    try {
      expect(gpt2.surgery).toBeUndefined();
      expect(fieldOf(() => gpt2.lens(TOKENS.slice(0, 8), { surgery: { ablateHeads: [[0, 0]] } }))).toBe('surgery');
      expect(fieldOf(() => gpt2.lensMap(TOKENS.slice(0, 8), { surgery: { ablateHeads: [[0, 0]] } }))).toBe('surgery');
    } finally {
      gpt2.delete();
    }
  });
});

describe.each(VARIANTS)('position surgery on the lab model, %s training module', (variant) => {
  let train;
  const checkpoint = new Uint8Array(fs.readFileSync(LAB_CHECKPOINT));
  beforeAll(async () => {
    const { createTrainLab } = await import(path.join(repoRoot, 'web/src/core/poslab.js'));
    train = await createTrainLab({
      variant,
      wasmBinary: fs.readFileSync(modulePath(variant, 'poslab-train')),
    });
  });

  test.each(LAB_SWEEPS.map(([label, options], i) => [label, options, i]))(
    'textSurgery, %s: the report equals `poslab surgery` (float, 1e-5)',
    (label, options, i) => {
      const got = train.textSurgery(checkpoint, LAB_TEXT, options);
      expectSameReport(got, natives.lab[i], `${variant} lab ${label}`, { atol: 1e-5, rtol: 1e-5 });
    },
  );

  test('the single sweep is the layers sweep’s entry; textLens and textLensMap take the surgery', async () => {
    const layers = train.textSurgery(checkpoint, LAB_TEXT, { sweep: 'layers' });
    const calls = [];
    const single = train.textSurgery(checkpoint, LAB_TEXT, {
      sweep: 'single',
      surgery: { nopeLayers: [1] },
      onProgress: (done, total) => calls.push([done, total]),
    });
    expect(calls).toEqual([
      [1, 2],
      [2, 2],
    ]);
    const entry = layers.interventions.find((i) => i.name === 'NoPE layer 1');
    assertClose(vec(single.interventions[0].loss_by_position), vec(entry.loss_by_position), `${variant} single`);
    // textLens with a surgery against `poslab lens` with its flags.
    const ids = LAB_TEXT.subarray(0, 60);
    const surgery = { nopeLayers: [0], ablateHeads: [[1, 3]] };
    const want = await cli('lens', [
      '--weights',
      LAB_CHECKPOINT,
      '--tokens',
      Array.from(ids).join(','),
      ...interventionFlags(surgery),
    ]);
    const got = train.textLens(checkpoint, ids, { surgery });
    expect(got.heads.map((h) => h.role)).toEqual(want.heads.map((h) => h.role));
    got.heads.forEach((h, i) => {
      const scores = (x) => ['sink', 'previous_token', 'induction', 'local'].map((k) => x.scores[k]);
      assertClose(vec(scores(h)), vec(scores(want.heads[i])), `${variant} textLens head ${i}`, {
        atol: 1e-5,
        rtol: 1e-5,
      });
    });
    // A layer-0 ablation leaves layer 0's maps and moves layer 1's; NoPE in layer 0 moves its own.
    const map = (layer, s) => Array.from(train.textLensMap(checkpoint, ids, { layer, head: 2, surgery: s }).attention);
    expect(map(0, { ablateHeads: [[0, 2]] })).toEqual(map(0, undefined));
    expect(map(1, { ablateHeads: [[0, 2]] })).not.toEqual(map(1, undefined));
    expect(map(0, { nopeLayers: [0] })).not.toEqual(map(0, undefined));
  });

  test.each([
    [{ sweep: 'bands', precision: 'double' }, 'precision'],
    [{ sweep: 'single', surgery: { nopeHeads: [[2, 0]] } }, 'nopeHeads'],
    [{ sweep: 'single', surgery: { ropeLocalBase: 100 } }, 'ropeLocalBase'],
    [{ sweep: 'bands', group: 9 }, 'group'],
    [{ sweep: 'bands', rope: { scaling: 'warp' } }, 'scaling'],
    [undefined, 'sweep'],
  ])('textSurgery(checkpoint, text, %j) is refused naming %s', (options, field) => {
    expect(fieldOf(() => train.textSurgery(checkpoint, LAB_TEXT, options))).toBe(field);
  });
});
