// The Position lens job on stand-ins of the language-model module and the training module
// (the real ones are checked by tests/wasm and the Chromium e2e): which model and tokens each
// setting runs the lens on, the comparisons (the lab model's random initialisation from a
// 0-step training run, a tiny model's next seed, a scaling passed as `rope`), the selected
// head's map, the field of each refusal, and what the view reads off a report.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { BANDS, ROLES, roleOf } from '../../web/src/content/lens-roles.js';
import { loadTokenizer } from '../../web/src/lm/tokenizer.js';
import { headOutsideShape, parseHead, reportShape } from '../../web/src/state/lens-head.js';
import { SCHEMA, settingOfField, viewNamed } from '../../web/src/state/registry.js';
import {
  bandsText,
  cellText,
  headAt,
  roleCountsText,
  scoreRows,
  shiftVerdict,
  SHIFT_TOLERANCE,
  spectrumPlan,
} from '../../web/src/views/lens-report.js';
import { heldOutSample } from '../../web/src/worker/jobs/lab-rope.js';
import { RANDOM_MODELS } from '../../web/src/worker/jobs/lm-models.js';
import { TINY_NEOX_CONFIG, tinyTokenizerJson } from '../helpers/tiny-models.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SHIPPED = new Uint8Array(fs.readFileSync(path.join(root, 'web/src/content/text-rope.safetensors')));

// The training module the job loads (lab-rope.js imports core/train.js on first use).
const fakes = vi.hoisted(() => ({ train: null }));
vi.mock('../../web/src/core/train.js', () => ({ createTrainLab: async () => fakes.train }));

/** The __metadata__.config of a lab checkpoint, read here without the job's code. */
function metadataConfig(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  return JSON.parse(JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))).__metadata__.config);
}

/** A checkpoint with `config` in its metadata and no tensors. */
function checkpointWith(config) {
  const header = new TextEncoder().encode(
    JSON.stringify({ __metadata__: { format: 'poslab-train', config: JSON.stringify(config) } }),
  );
  const bytes = new Uint8Array(8 + header.length);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(header.length), true);
  bytes.set(header, 8);
  return bytes;
}

const ROLE_CYCLE = ['sink', 'previous-token', 'induction', 'local', 'broad'];

/** A lens report of `layers` × `heads` on T tokens, lens.d.ts's shape; `tag` tells reports apart. */
function fakeReport({ layers, heads, T, rope = false, pairs = 4, tag = 'a', invFreq = null }) {
  const list = [];
  const counts = Object.fromEntries(ROLE_CYCLE.map((r) => [r, 0]));
  for (let l = 0; l < layers; l++)
    for (let h = 0; h < heads; h++) {
      const role = ROLE_CYCLE[(l * heads + h) % ROLE_CYCLE.length];
      counts[role]++;
      list.push({
        layer: l,
        head: h,
        role,
        scores: { sink: 0.1, previous_token: 0.2, induction: 0.3, local: 0.8 },
        distance_profile: Float32Array.from({ length: T }, (_, d) => 1 / (d + 1)),
        ...(rope
          ? {
              pair_energy: Float32Array.from({ length: pairs + 1 }, () => 1 / (pairs + 1)),
              turning_share: 0.6,
              bands: h % 2 ? 'semantic' : 'positional',
            }
          : {}),
      });
    }
  const inv = invFreq ?? Float64Array.from({ length: pairs }, (_, i) => 10000 ** (-i / pairs));
  return {
    weights: tag,
    tokens: T,
    precision: 'float',
    induction: { period: T >> 1, seed: 0 },
    thresholds: { sink: 0.5, previous_token: 0.5, induction: 0.4, local: 0.7, local_window: 4 },
    role_counts: counts,
    shift: { k: T, max_abs_logit_change: 1e-6, max_abs_logit: 10, relative_change: 1e-7, invariant_expected: true },
    shuffle: {
      loss_by_position: {
        index: new Float64Array(T - 1),
        shuffled: new Float64Array(T - 1),
        constant: new Float64Array(T - 1),
      },
      mean_loss: { index: 1, shuffled: 4, constant: 5 },
      seed: 0,
    },
    rope_bands: rope
      ? {
          inv_freq: inv,
          wavelength: Float64Array.from(inv, (f) => (2 * Math.PI) / f),
          trained_context: 64,
          uniform_share: 0.5,
          positional_threshold: 0.75,
          positional_share: 0.5,
          positional_heads: 1,
          semantic_heads: 1,
        }
      : null,
    heads: list,
  };
}

/** A map whose every cell is its row's index, so a test can tell maps apart by size. */
const fakeMap = (T) => ({ size: T, attention: new Float32Array(T * T) });

/** The training module: the lab's lens on a checkpoint's bytes, and 0-step runs. */
function fakeTrain() {
  const log = { lens: [], maps: [], runs: [], disposed: 0 };
  return {
    log,
    defaults: { seed: 0 },
    textLens(checkpoint, tokens, options) {
      log.lens.push({ checkpoint, tokens: Array.from(tokens), options });
      const c = metadataConfig(checkpoint);
      return fakeReport({ layers: c.n_layer, heads: c.n_head, T: tokens.length, tag: c.tag ?? 'shipped' });
    },
    textLensMap(checkpoint, tokens, options) {
      log.maps.push({ checkpoint, tokens: Array.from(tokens), options });
      return fakeMap(tokens.length);
    },
    createRun(config) {
      log.runs.push(config);
      const { text, ...rest } = config;
      const ckpt = checkpointWith({ ...metadataConfig(SHIPPED), tag: `init seed ${rest.seed}` });
      return {
        checkpoint: () => ckpt,
        dispose: () => log.disposed++,
      };
    },
  };
}

/** A RoPE language model as lab.gptNeoxRandom / llamaRandom / a loader gives it. */
function fakeModel(architecture, config, seed, log) {
  const layers = config.num_hidden_layers ?? config.n_layer;
  const heads = config.num_attention_heads ?? config.n_head;
  const m = {
    architecture,
    config: { ...config, max_position_embeddings: config.max_position_embeddings ?? config.n_positions },
    seed,
    deleted: false,
    lens(tokens, options) {
      log.lens.push({ model: m, tokens: Array.from(tokens), options });
      const rope = architecture !== 'gpt2';
      const scaled = options?.rope;
      const inv = rope
        ? Float64Array.from({ length: 4 }, (_, i) => 10000 ** (-i / 4) / (scaled && i >= 2 ? scaled.factor : 1))
        : null;
      return fakeReport({ layers, heads, T: tokens.length, rope, tag: `seed ${seed}`, invFreq: inv });
    },
    lensMap(tokens, options) {
      log.maps.push({ model: m, options });
      return fakeMap(tokens.length);
    },
    delete() {
      m.deleted = true;
    },
  };
  return m;
}

function fakeLab() {
  const log = { random: [], lens: [], maps: [], loaders: [] };
  const parse = (c) => (typeof c === 'string' ? JSON.parse(c) : c);
  const random = (architecture) => (opts) => {
    log.random.push({ architecture, ...opts });
    return fakeModel(architecture, parse(opts.config), opts.seed, log);
  };
  return {
    log,
    gptNeoxRandom: random('gpt_neox'),
    llamaRandom: random('llama'),
    gpt2Random: random('gpt2'),
    safetensorsHeaderLength: () => 2,
    gptNeoxLoader: ({ config, fileSize, header }) => loading('gpt_neox', config, fileSize - header.length, log),
    gpt2Loader: ({ config, fileSize, header }) => loading('gpt2', config, fileSize - header.length, log),
  };
}

function loading(architecture, config, expected, log) {
  log.loaders.push(architecture);
  let received = 0;
  return {
    append: (c) => (received += c.length),
    received: () => received,
    expected,
    finish: () => fakeModel(architecture, JSON.parse(config), 'file', log),
    delete: () => {},
  };
}

const file = (text, name) => new File([text], name);
const GPT2_CONFIG = { model_type: 'gpt2', vocab_size: 50257, n_positions: 128, n_embd: 32, n_layer: 3, n_head: 2 };
const neoxFiles = () => ({
  weights: file(new Uint8Array(2 + 8 + 40), 'model.safetensors'),
  config: file(JSON.stringify(TINY_NEOX_CONFIG), 'config.json'),
  tokenizer: file(JSON.stringify(tinyTokenizerJson()), 'tokenizer.json'),
});
const gpt2Files = () => ({
  weights: file(new Uint8Array(2 + 8 + 40), 'model.safetensors'),
  config: file(JSON.stringify(GPT2_CONFIG), 'config.json'),
});

const base = { model: 'lab-rope', compare: 'none', scaling: 'yarn', factor: 4, head: '0.0', text: '' };

let lens;
let lab;
beforeEach(async () => {
  // The job keeps its models and reports between requests: each test starts with a fresh one.
  vi.resetModules();
  fakes.train = fakeTrain();
  ({ lens } = await import('../../web/src/worker/jobs/lens.js'));
  lab = fakeLab();
});

describe('the lens job on the lab’s model (the default)', () => {
  it('LensJob.LabModelReadsTheFirst64BytesOfTheHeldOutSample', async () => {
    const progress = [];
    const r = await lens(lab, base, { progress: (d) => progress.push(d.phase) });
    const want = Array.from((await heldOutSample()).subarray(0, 64));
    const { log } = fakes.train;
    expect(log.lens).toHaveLength(1);
    expect(log.lens[0].checkpoint).toEqual(SHIPPED);
    expect(log.lens[0].tokens).toEqual(want);
    expect(log.lens[0].options).toEqual({});
    expect(log.maps).toEqual([{ checkpoint: SHIPPED, tokens: want, options: { layer: 0, head: 0 } }]);
    expect(reportShape(r.report)).toEqual([2, 4]);
    expect([r.random, r.unit, r.second, r.names]).toEqual([false, 'bytes', null, ['trained']]);
    expect(r.model).toMatch(/^a byte-level RoPE model trained by the lab \(2 layers × 4 heads, context 64/);
    expect(r.source).toMatch(/held-out tenth/);
    const m = r.heatmaps.map;
    expect([m.rows, m.cols, m.cmap, m.xLabels.length]).toEqual([64, 64, 'viridis', 64]);
    expect(m.xLabels[want.indexOf(32)]).toBe('␣'); // a space, made visible
    expect(progress).toEqual(['model', 'lens', 'map']);
  });

  it('LensJob.LabModelReadsTheUsersTextAsBytesUpToItsContext', async () => {
    const r = await lens(lab, { ...base, text: 'héllo' });
    expect(fakes.train.log.lens[0].tokens).toEqual(Array.from(new TextEncoder().encode('héllo')));
    expect([r.tokens.length, r.textLength, r.source]).toEqual([6, 6, 'your text']);
    await lens(lab, { ...base, text: 'x'.repeat(100) });
    expect(fakes.train.log.lens[1].tokens).toHaveLength(64);
    await expect(lens(lab, { ...base, text: 'a' })).rejects.toMatchObject({ field: 'text' });
  });

  it('LensJob.LabControlIsAZeroStepRunOfTheSameConfig', async () => {
    const r = await lens(lab, { ...base, compare: 'random' });
    const { log } = fakes.train;
    expect(log.runs).toHaveLength(1);
    const { text, ...config } = log.runs[0];
    expect(config).toEqual({
      task: 'text',
      position: 'rope',
      trainLen: 64,
      testLen: 64,
      layers: 2,
      width: 64,
      heads: 4,
      embedScale: 4,
      steps: 0,
      seed: 0,
    });
    expect(text.length).toBeGreaterThan(1000); // the text task needs one; no step reads it
    expect(log.disposed).toBe(1);
    expect(log.lens).toHaveLength(2);
    expect(log.lens[1].tokens).toEqual(log.lens[0].tokens); // the same bytes
    expect(r.second.weights).toBe('init seed 0');
    expect(r.names).toEqual(['trained', 'random init']);
    // The run's config differs from the shipped one only by the stand-in's tag.
    expect(r.secondLabel).toMatch(/random initialisation \(a training run of 0 steps, seed 0; its config differs: tag/);
    // Made once: the next comparison reuses it.
    await lens(lab, { ...base, compare: 'random', text: 'another text' });
    expect(log.runs).toHaveLength(1);
  });

  it('LensJob.LabModelComparesWithAScaling', async () => {
    const r = await lens(lab, { ...base, compare: 'scaled', scaling: 'llama3', factor: 8 });
    expect(fakes.train.log.lens.map((c) => c.options)).toEqual([{}, { rope: { scaling: 'llama3', factor: 8 } }]);
    expect(r.names).toEqual(['as configured', 'llama3 × 8']);
    expect(r.second).not.toBeNull();
    expect(settingOfField(viewNamed('lens'), 'compare', {})).toBe('ln.compare');
  });

  it('LensJob.AnotherHeadCostsOneMapNotTheLensAgain', async () => {
    await lens(lab, base);
    const r = await lens(lab, { ...base, head: '1.2' });
    const { log } = fakes.train;
    expect(log.lens).toHaveLength(1);
    expect(log.maps.map((m) => m.options)).toEqual([
      { layer: 0, head: 0 },
      { layer: 1, head: 2 },
    ]);
    expect(r.head).toEqual({ layer: 1, head: 2 });
    // A head the model lacks: the report still comes (the grid is drawn), with why there is no map.
    const out = await lens(lab, { ...base, head: '2.0' });
    expect(log.maps).toHaveLength(2);
    expect(out.heatmaps.map).toBeUndefined();
    expect(out.missing).toMatch(/^head 2\.0 is not in this model: it has 2 layers × 4 heads \(0\.0 to 1\.3\)/);
    expect(out.report.heads).toHaveLength(8);
  });
});

describe('the lens job on the random tiny models', () => {
  it('LensJob.TinyNeoxOnGpt2TokensOfTheSampleUpToItsContext', async () => {
    const r = await lens(lab, { ...base, model: 'tiny' });
    const { label, random, ...choice } = RANDOM_MODELS.tiny;
    expect(lab.log.random).toEqual([{ architecture: 'gpt_neox', ...choice, seed: 0 }]);
    const tok = await loadTokenizer();
    const ids = tok.encode(new TextDecoder().decode(await heldOutSample()));
    expect(lab.log.lens[0].tokens).toEqual(ids.slice(0, 64)); // its context: 64
    expect([r.random, r.unit, r.names, r.tokenizer]).toEqual([true, 'tokens', ['seed 0'], 'GPT-2’s tokenizer']);
    expect(reportShape(r.report)).toEqual([2, 2]);
    expect(r.tokens[0]).toBe(tok.piece(ids[0]).replace(/ /g, '␣'));
  });

  it('LensJob.TinyControlIsTheNextSeedAndTheModelIsKept', async () => {
    const r = await lens(lab, { ...base, model: 'tiny-llama', compare: 'random' });
    expect(lab.log.random.map((x) => [x.architecture, x.seed])).toEqual([
      ['llama', 0],
      ['llama', 1],
    ]);
    expect(lab.log.lens.map((x) => x.model.seed)).toEqual([0, 1]);
    expect([r.second.weights, r.names]).toEqual(['seed 1', ['seed 0', 'seed 1']]);
    expect(reportShape(r.second)).toEqual([2, 4]);
    // The same model, the user's text: nothing made again.
    await lens(lab, { ...base, model: 'tiny-llama', compare: 'random', text: 'the cat sat on the mat' });
    expect(lab.log.random).toHaveLength(2);
    // Another model replaces both, deleting them.
    const [first, control] = lab.log.lens.slice(0, 2).map((x) => x.model);
    await lens(lab, { ...base, model: 'tiny' });
    expect([first.deleted, control.deleted]).toEqual([true, true]);
  });

  it('LensJob.ScaledComparisonPassesTheScalingAsRope', async () => {
    const r = await lens(lab, { ...base, model: 'tiny-llama', compare: 'scaled', scaling: 'llama3', factor: 8 });
    expect(lab.log.lens.map((x) => x.options)).toEqual([{}, { rope: { scaling: 'llama3', factor: 8 } }]);
    expect(lab.log.random).toHaveLength(1); // the same model, scaled
    expect(r.names).toEqual(['as configured', 'llama3 × 8']);
    expect(spectrumPlan(r.report, r.second).changed).toEqual([2, 3]);
    // The map is the model's as configured.
    expect(lab.log.maps.at(-1).options).toEqual({ layer: 0, head: 0 });
  });
});

describe('the lens job on a local checkpoint', () => {
  it('LensJob.NeoxCheckpointWithItsTokenizerAndItsRandomTwin', async () => {
    const files = neoxFiles();
    const r = await lens(lab, { ...base, model: 'file', files, compare: 'random', text: 'the cat sat' });
    expect(lab.log.loaders).toEqual(['gpt_neox']);
    expect(lab.log.lens[0].tokens).toEqual([2 + 116, 259, 263, 265]); // the tiny tokenizer.json's merges
    expect(lab.log.random).toEqual([{ architecture: 'gpt_neox', config: JSON.stringify(TINY_NEOX_CONFIG), seed: 0 }]);
    expect([r.random, r.tokenizer, r.names]).toEqual([false, 'the model’s tokenizer.json', ['loaded', 'random']]);
    expect(r.model).toBe('model.safetensors (config.json)');
  });

  it('LensJob.Gpt2CheckpointRunsButHasNoRotationToScale', async () => {
    const files = gpt2Files();
    const r = await lens(lab, { ...base, model: 'file', files, text: 'one two three' });
    expect(lab.log.loaders).toEqual(['gpt2']);
    expect([r.rope, r.report.rope_bands]).toEqual([false, null]);
    await expect(lens(lab, { ...base, model: 'file', files, compare: 'scaled' })).rejects.toMatchObject({
      field: 'compare',
      message: expect.stringMatching(/^GPT-2 learns its positions: it has no rotation to scale/),
    });
    const twin = await lens(lab, { ...base, model: 'file', files, compare: 'random' });
    expect(lab.log.random.at(-1)).toMatchObject({ architecture: 'gpt2', seed: 0 });
    expect(reportShape(twin.second)).toEqual([3, 2]);
  });

  it('LensJob.NoCheckpointPickedIsAboutTheModelSetting', async () => {
    await expect(lens(lab, { ...base, model: 'file' })).rejects.toMatchObject({ field: 'model' });
    await expect(lens(lab, { ...base, model: 'gpt-9' })).rejects.toMatchObject({ field: 'model' });
    expect(lab.log.lens).toHaveLength(0);
  });
});

describe('what the view reads off a report', () => {
  it('LensView.HeadSettingIsLayerDotHead', () => {
    const type = SCHEMA['ln.head'];
    expect(type.def).toBe('0.0');
    for (const ok of ['0.0', '1.2', '11.15', '99.99']) expect(type.check(ok).ok, ok).toBe(true);
    for (const bad of ['1', '1.', '.2', '01.2', '1.02', '100.0', '1.2.3', '-1.0', ' 1.2', 'a.b']) {
      expect(type.check(bad).ok, bad).toBe(false);
    }
    expect(parseHead('11.15')).toEqual({ layer: 11, head: 15 });
    expect(headOutsideShape('1.3', 2, 4)).toBeNull();
    expect(headOutsideShape('1.4', 2, 4)).toMatch(/it has 2 layers × 4 heads/);
    expect(headOutsideShape('2.0', 2, 4)).not.toBeNull();
  });

  it('LensView.ShiftBadgePassesWarnsOrSaysNotExpected', () => {
    const shift = (relative_change, invariant_expected) => ({
      k: 64,
      max_abs_logit_change: relative_change * 10,
      max_abs_logit: 10,
      relative_change,
      invariant_expected,
    });
    expect(shiftVerdict(shift(1.6e-7, true))).toMatchObject({ kind: 'pass', badge: 'invariant ✓' });
    expect(shiftVerdict(shift(SHIFT_TOLERANCE, true))).toMatchObject({ kind: 'warn' });
    expect(shiftVerdict(shift(0.3, false))).toMatchObject({ kind: 'info', badge: 'not expected invariant' });
    expect(shiftVerdict(null).kind).toBe('none');
    expect(shiftVerdict(shift(1.6e-7, true)).text).toMatch(/^Every position moved by k = 64/);
  });

  it('LensView.SpectrumMarksTheTurningPairsAndTheScaledOnes', () => {
    const a = fakeReport({ layers: 1, heads: 1, T: 8, rope: true });
    const plan = spectrumPlan(a);
    // Wavelengths 2π·10000^(i/4): 6.3, 62.8 (at most N = 64), 628, 6283.
    expect(plan.labels).toEqual(['0 · 6.283', '1 · 62.83', '2 · 628.3', '3 · 6283', 'unrotated']);
    expect([plan.turning, plan.context, plan.changed]).toEqual([2, 64, []]);
    expect(spectrumPlan(a, a).changed).toEqual([]);
    const b = fakeReport({ layers: 1, heads: 1, T: 8, rope: true, invFreq: Float64Array.from([1, 0.1, 0.001, 1e-4]) });
    expect(spectrumPlan(a, b).changed).toEqual([2, 3]);
    expect(spectrumPlan(fakeReport({ layers: 1, heads: 1, T: 8 }))).toBeNull();
    // Layers that turn at their own base (Gemma 3's sliding layers) are read against their pairs.
    const local = Float64Array.from([1, 0.01, 1e-4, 1e-6]);
    const wave = (f) => Array.from(f, (x) => (2 * Math.PI) / x);
    const gemma = {
      ...a,
      rope_bands: {
        ...a.rope_bands,
        layers: [
          { inv_freq: local, wavelength: wave(local) },
          { inv_freq: a.rope_bands.inv_freq, wavelength: a.rope_bands.wavelength },
        ],
      },
    };
    const sliding = spectrumPlan(gemma, null, 0);
    expect([sliding.labels[1], sliding.turning, sliding.ownBase]).toEqual(['1 · 628.3', 1, true]);
    expect(spectrumPlan(gemma, null, 1)).toEqual(plan);
    expect(plan.ownBase).toBe(false);
    // The bands' legend: the cut is positional_share, positional_threshold of the way from u.
    expect(
      bandsText({ ...a.rope_bands, uniform_share: 1 / 3, positional_threshold: 0.5, positional_share: 2 / 3 }),
    ).toBe(
      '● positional: its score energy leans on the rotation pairs that turn within the trained context (the fast pairs), ' +
        'a turning share ≥ 0.6667 (0.5 of the way from an even spread, 0.3333, to all of it); ' +
        '○ semantic: it leans less on them: more on the slow pairs and the unrotated dims. 1 positional, 1 semantic.',
    );
  });

  it('LensView.ScoresCountsAndCells', () => {
    const r = fakeReport({ layers: 2, heads: 4, T: 8, rope: true });
    expect(roleCountsText(r.role_counts)).toBe('sink 2 · previous token 2 · induction 2 · local 1 · broad 1');
    const head = headAt(r, 1, 0);
    expect(head.role).toBe('broad');
    expect(scoreRows(head, r.thresholds).map((x) => [x.label, x.reached])).toEqual([
      ['sink', false],
      ['previous token', false],
      ['induction', false],
      ['local', true],
    ]);
    expect(cellText(head)).toEqual({ text: 'B●', name: 'layer 1, head 0: broad, positional' });
    expect(cellText(headAt(r, 1, 3))).toEqual({ text: 'I○', name: 'layer 1, head 3: induction, semantic' });
    expect(cellText({ ...head, bands: undefined, role: 'local' }).text).toBe('L');
  });

  it('LensView.RoleColoursAreDistinctAndTheirLettersReadAtAA', () => {
    const luminance = (hex) => {
      const c = hex.length === 4 ? [...hex.slice(1)].map((x) => x + x) : [1, 3, 5].map((i) => hex.slice(i, i + 2));
      const [r, g, b] = c
        .map((x) => parseInt(x, 16) / 255)
        .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const contrast = (a, b) => {
      const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
      return (x + 0.05) / (y + 0.05);
    };
    expect(ROLES.map((r) => r.role)).toEqual(ROLE_CYCLE);
    expect(new Set(ROLES.map((r) => r.colour)).size).toBe(ROLES.length);
    expect(new Set(ROLES.map((r) => r.letter)).size).toBe(ROLES.length);
    for (const r of ROLES) expect(contrast(r.colour, r.ink), r.role).toBeGreaterThanOrEqual(4.5);
    expect(roleOf('nothing-known')).toBe(ROLES.at(-1));
    expect(Object.keys(BANDS)).toEqual(['positional', 'semantic']);
    const t = { sink: 0.5, previous_token: 0.5, induction: 0.4, local: 0.7, local_window: 4 };
    expect(ROLES.map((r) => r.rule(t))).toEqual([
      'mean weight on the first token ≥ 0.5',
      'mean weight on the token just before ≥ 0.5',
      'on a random sequence repeated, mean weight on the token after the earlier copy of the current one ≥ 0.4',
      'mean weight within the last 4 tokens ≥ 0.7',
      'none of the above',
    ]);
  });
});
