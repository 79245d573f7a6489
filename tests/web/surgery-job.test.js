// The Surgery job on stand-ins of the training module, the language-model module and the Models
// view's loaded model (the real modules: tests/web/surgery-module.test.js and the Chromium e2e):
// which tokens and options each setting sweeps, the bar the lower figures show and its
// intervention given again to the maps, what is kept between requests, the field of each
// refusal, a cancelled sweep, and what the view reads off a report.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { loadTokenizer } from '../../web/src/lm/tokenizer.js';
import { SCHEMA, defaults, pick, settingOfField, viewNamed } from '../../web/src/state/registry.js';
import {
  parseBases,
  parseHeads,
  parsePairs,
  shownIntervention,
  singleSurgery,
  surgeryOfParams,
  sweepOptions,
} from '../../web/src/state/surgery-settings.js';
import { barLabel, barsOf, deltasCsv, legendOf, reportJson } from '../../web/src/views/surgery-report.js';
import { heldOutSample } from '../../web/src/worker/jobs/lab-rope.js';
import { RANDOM_MODELS } from '../../web/src/worker/jobs/lm-models.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SHIPPED = new Uint8Array(fs.readFileSync(path.join(root, 'web/src/content/text-rope.safetensors')));

const fakes = vi.hoisted(() => ({ train: null, loaded: null }));
vi.mock('../../web/src/core/train.js', () => ({ createTrainLab: async () => fakes.train }));
// The Models view's model, as its job holds it between its own jobs.
vi.mock('../../web/src/worker/jobs/lm.js', () => ({
  withLoadedModel: (fn) => Promise.resolve().then(() => fn(fakes.loaded)),
}));

const LENS = {
  role: 'local',
  scores: { sink: 0, previous_token: 0.2, induction: 0, local: 0.8 },
  bands: 'positional',
  turning_share: 0.7,
};

/**
 * A report as the core writes it for a model of `layers` × `heads` with `pairs` rotation pairs
 * (surgery.json's keys): the sweep's interventions in the core's order, each with a change of
 * 0.1 × its place but the third, 5 (the largest).
 */
function fakeReport(o, { layers, heads, pairs }, T) {
  const list = [];
  const add = (name, kind, params, lens) => list.push({ name, kind, params, ...(lens ? { lens } : {}) });
  if (o.sweep === 'bands') {
    const K = o.group ?? Math.max(1, pairs / 16);
    for (let a = 0; a < pairs; a += K) add(`zero pairs ${a}:${a + K}`, 'zero_pairs', { rope_zero_pairs: [[a, a + K]] });
    for (const f of [1, 0.75, 0.5, 0.25, 0]) {
      const kept = Math.floor(f * pairs);
      add(`keep top ${f * 100}%`, 'keep_top', {
        fraction: f,
        ...(kept < pairs ? { rope_zero_pairs: [[kept, pairs]] } : {}),
      });
    }
  } else if (o.sweep === 'heads') {
    for (let l = 0; l < layers; l++)
      for (let h = 0; h < heads; h++) {
        add(`NoPE head ${l}:${h}`, 'nope_head', { layer: l, head: h, nope_heads: [[l, h]] }, LENS);
        add(`ablate head ${l}:${h}`, 'ablate_head', { layer: l, head: h, ablate_heads: [[l, h]] }, LENS);
      }
  } else if (o.sweep === 'layers') {
    for (let l = 0; l < layers; l++) add(`NoPE layer ${l}`, 'nope_layer', { layer: l, nope_layers: [l] });
  } else if (o.sweep === 'base') {
    for (const b of o.bases ?? [100, 1000]) add(`base ${b}`, 'base', { rope_base: b });
  } else add('single', 'single', {});
  const W = Math.min(o.window || T, T);
  const windows = Math.floor(T / W);
  const curve = (v) => Array.from({ length: W - 1 }, () => v);
  return {
    format: 'poslab-surgery/1',
    sweep: o.sweep,
    tokens: T,
    window: W,
    windows,
    trained_context: 64,
    bootstrap: { unit: windows >= 8 ? 'windows' : 'positions', resamples: 1000, seed: o.seed },
    forwards: (list.length + 1) * windows,
    forward_equivalents: list.length + 1,
    prefix_reused: false,
    baseline: { loss_mean: 2, loss_by_position: curve(2) },
    interventions: list.map((x, i) => {
      const d = i === 2 ? 5 : 0.1 * (i + 1);
      return {
        ...x,
        loss_mean: 2 + d,
        delta_mean: d,
        delta_ci: [d - 0.05, d + 0.05],
        delta_within_context: d / 2,
        delta_past_context: d * 2,
        loss_by_position: curve(2 + d),
      };
    }),
    notes: [],
  };
}

/** The lab checkpoint's shape, read here without the job's code. */
function metadataConfig(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  return JSON.parse(JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))).__metadata__.config);
}

/** Calls onProgress as a sweep does: after the unmodified pass, then after each intervention. */
function sweeping(report, onProgress) {
  const total = report.interventions.length + 1;
  for (let done = 1; done <= total; done++) onProgress?.(done, total);
  return report;
}

function fakeTrain() {
  const log = { sweeps: [], maps: [] };
  const c = metadataConfig(SHIPPED);
  return {
    log,
    textSurgery(checkpoint, tokens, options) {
      log.sweeps.push({ checkpoint, tokens: Array.from(tokens), options });
      return sweeping(
        fakeReport(options, { layers: c.n_layer, heads: c.n_head, pairs: 8 }, tokens.length),
        options.onProgress,
      );
    },
    textLensMap(checkpoint, tokens, options) {
      log.maps.push({ checkpoint, tokens: Array.from(tokens), options });
      return { size: tokens.length, attention: new Float32Array(tokens.length * tokens.length) };
    },
  };
}

function fakeModel(architecture, config, log) {
  const [layers, heads] = [config.num_hidden_layers, config.num_attention_heads];
  return {
    architecture,
    config,
    deleted: false,
    surgery(tokens, options) {
      log.sweeps.push({ model: this, tokens: Array.from(tokens), options });
      return sweeping(fakeReport(options, { layers, heads, pairs: 8 }, tokens.length), options.onProgress);
    },
    lensMap(tokens, options) {
      log.maps.push({ model: this, tokens: Array.from(tokens), options });
      return { size: tokens.length, attention: new Float32Array(tokens.length * tokens.length) };
    },
    delete() {
      this.deleted = true;
    },
  };
}

function fakeLab() {
  const log = { random: [], sweeps: [], maps: [] };
  const random = (architecture) => (opts) => {
    log.random.push({ architecture, ...opts });
    const config = typeof opts.config === 'string' ? JSON.parse(opts.config) : opts.config;
    return fakeModel(architecture, config, log);
  };
  return { log, gptNeoxRandom: random('gpt_neox'), llamaRandom: random('llama') };
}

/** The view's defaults, as the view passes them (its text box empty). */
const base = { ...pick(defaults(), 'sg'), text: '' };

let surgery;
let lab;
beforeEach(async () => {
  vi.resetModules(); // the job keeps its model and last sweep: each test starts afresh
  fakes.train = fakeTrain();
  fakes.loaded = null;
  ({ surgery } = await import('../../web/src/worker/jobs/surgery.js'));
  lab = fakeLab();
});

describe('the surgery job on the lab’s model (the default)', () => {
  it('SurgeryJob.DefaultsSweepTheBandsOnTheFirst4096BytesOfTheHeldOutSample', async () => {
    const seen = [];
    const r = await surgery(lab, base, { progress: (d) => seen.push(d) });
    const want = Array.from((await heldOutSample()).subarray(0, 4096));
    const { sweeps, maps } = fakes.train.log;
    expect(sweeps).toHaveLength(1);
    expect(sweeps[0].checkpoint).toEqual(SHIPPED);
    expect(sweeps[0].tokens).toEqual(want);
    const { onProgress, ...options } = sweeps[0].options;
    expect(options).toEqual({ sweep: 'bands', window: 256, seed: 0 });
    expect(typeof onProgress).toBe('function');
    // The bar shown is the largest change (the third), and the maps are on the first window.
    expect(r.shown).toBe(2);
    const x = r.report.interventions[2];
    expect(x.params).toEqual({ rope_zero_pairs: [[2, 3]] }); // 8 pairs in 16 groups: one each
    expect(maps.map((m) => m.options)).toEqual([
      { layer: 0, head: 0, surgery: {} },
      { layer: 0, head: 0, surgery: { ropeZeroPairs: [[2, 3]] } },
    ]);
    for (const m of maps) expect(m.tokens).toEqual(want.slice(0, 256));
    const { before, after } = r.heatmaps;
    expect([before.rows, before.cols, before.range, after.rows]).toEqual([256, 256, [0, 1], 256]);
    expect(before.xLabels[want.indexOf(32)]).toBe('␣');
    const sample = await heldOutSample();
    expect([r.unit, r.tokens, r.textLength, r.random, r.cached]).toEqual(['bytes', 4096, sample.length, false, false]);
    expect(r.shape).toEqual([2, 4]);
    expect(r.model).toMatch(/^a byte-level RoPE model trained by the lab \(2 layers × 4 heads, context 64\)/);
    // Progress: the model, the sweep's steps (the unmodified pass, then each intervention), the maps.
    const phases = seen.map((d) => (d.phase === 'sweep' ? `sweep ${d.done}/${d.total}` : d.phase));
    const n = r.report.interventions.length + 1;
    expect(phases).toEqual([
      'model',
      'sweep 0/0',
      ...Array.from({ length: n }, (_, i) => `sweep ${i + 1}/${n}`),
      'map',
    ]);
  });

  it('SurgeryJob.EachSweepTakesItsOwnOptions', async () => {
    const options = async (p) => {
      await surgery(lab, { ...base, ...p });
      const { onProgress, ...o } = fakes.train.log.sweeps.at(-1).options;
      return o;
    };
    expect(await options({ sweep: 'bands', group: 2, bases: '10,20' })).toEqual({
      sweep: 'bands',
      window: 256,
      seed: 0,
      group: 2,
    });
    expect(await options({ sweep: 'base', bases: '100, 1e6', group: 2, seed: 7 })).toEqual({
      sweep: 'base',
      window: 256,
      seed: 7,
      bases: [100, 1e6],
    });
    expect(await options({ sweep: 'base', bases: '' })).toEqual({ sweep: 'base', window: 256, seed: 0 }); // the core's list
    expect(await options({ sweep: 'heads', window: 64 })).toEqual({ sweep: 'heads', window: 64, seed: 0 });
    const single = {
      sweep: 'single',
      zero: '0:2, 6:8',
      nopel: [1],
      nopeh: '0.1',
      ablate: '1.2,1.3',
      rbase: 500,
      lbase: 0,
    };
    expect(await options(single)).toEqual({
      sweep: 'single',
      window: 256,
      seed: 0,
      surgery: {
        ropeZeroPairs: [
          [0, 2],
          [6, 8],
        ],
        nopeLayers: [1],
        nopeHeads: [[0, 1]],
        ablateHeads: [
          [1, 2],
          [1, 3],
        ],
        ropeBase: 500,
      },
    });
  });

  it('SurgeryJob.AnotherBarOrHeadCostsTwoMapsNotTheSweepAgain', async () => {
    await surgery(lab, { ...base, sweep: 'heads' });
    const r = await surgery(lab, { ...base, sweep: 'heads', show: 4, head: '1.2' });
    const { sweeps, maps } = fakes.train.log;
    expect(sweeps).toHaveLength(1);
    expect(r.cached).toBe(true);
    expect(r.shown).toBe(3); // the fourth bar: ablate head 0.1
    expect(maps.slice(2).map((m) => m.options)).toEqual([
      { layer: 1, head: 2, surgery: {} },
      { layer: 1, head: 2, surgery: { ablateHeads: [[0, 1]] } },
    ]);
    // Another text, length or seed is another sweep.
    await surgery(lab, { ...base, sweep: 'heads', seed: 1 });
    await surgery(lab, { ...base, sweep: 'heads', seed: 1, len: 1000 });
    await surgery(lab, { ...base, sweep: 'heads', seed: 1, len: 1000, text: 'x'.repeat(600) });
    expect(sweeps.map((s) => s.tokens.length)).toEqual([4096, 4096, 1000, 600]);
  });

  it('SurgeryJob.AHeadTheModelLacksHasNoMapsButItsBars', async () => {
    const r = await surgery(lab, { ...base, head: '2.0' });
    expect(fakes.train.log.maps).toHaveLength(0);
    expect(r.heatmaps).toEqual({});
    expect(r.missing).toMatch(/^head 2\.0 is not in this model: it has 2 layers × 4 heads/);
    expect(r.report.interventions.length).toBeGreaterThan(0);
    // A bar past the sweep's: the largest change is shown.
    expect((await surgery(lab, { ...base, show: 99 })).shown).toBe(2);
  });

  it('SurgeryJob.RefusalsNameTheirSetting', async () => {
    const view = viewNamed('surgery');
    const refused = async (p) => {
      const e = await surgery(lab, { ...base, ...p }).catch((x) => x);
      return [e.field, settingOfField(view, e.field, p), e.message];
    };
    const [field, key, message] = await refused({ sweep: 'single' });
    expect([field, key]).toEqual(['zero', 'sg.zero']);
    expect(message).toMatch(/your intervention is empty/);
    expect((await refused({ text: 'a' })).slice(0, 2)).toEqual(['tokens', null]); // beside the text box
    expect((await refused({ model: 'gpt2' })).slice(0, 2)).toEqual(['model', 'sg.model']);
    expect(fakes.train.log.sweeps).toHaveLength(0);
    // The core's fields, each on its control.
    for (const [f, k] of [
      ['ropeZeroPairs', 'sg.zero'],
      ['nopeLayers', 'sg.nopel'],
      ['nopeHeads', 'sg.nopeh'],
      ['ablateHeads', 'sg.ablate'],
      ['ropeBase', 'sg.rbase'],
      ['ropeLocalBase', 'sg.lbase'],
      ['surgery', 'sg.sweep'],
      ['bases', 'sg.bases'],
      ['group', 'sg.group'],
      ['window', 'sg.window'],
      ['layer', 'sg.head'],
    ]) {
      expect(settingOfField(view, f, {}), f).toBe(k);
    }
  });

  it('SurgeryJob.ARaisedStopFlagStopsTheSweepAtItsNextPass', async () => {
    const stop = new Int32Array(new SharedArrayBuffer(4));
    Atomics.store(stop, 0, 1);
    await expect(surgery(lab, { ...base, stop })).rejects.toThrow(/cancelled/);
    // Nothing kept: the next request sweeps again.
    await surgery(lab, base);
    expect(fakes.train.log.sweeps).toHaveLength(2);
  });
});

describe('the surgery job on the language models', () => {
  it('SurgeryJob.TinyModelsSweepGpt2TokensOfTheSampleAndAreKept', async () => {
    const r = await surgery(lab, { ...base, model: 'tiny-llama', sweep: 'layers', len: 300 });
    const { label, random, ...choice } = RANDOM_MODELS['tiny-llama'];
    expect(lab.log.random).toEqual([{ architecture: 'llama', ...choice, seed: 0 }]);
    const tok = await loadTokenizer();
    const ids = tok.encode(new TextDecoder().decode(await heldOutSample()));
    expect(lab.log.sweeps[0].tokens).toEqual(ids.slice(0, 300));
    expect([r.unit, r.random, r.tokenizer, r.context]).toEqual(['tokens', true, 'GPT-2’s tokenizer', 64]);
    expect(r.shape).toEqual([2, 4]);
    expect(r.heatmaps.before.rows).toBe(256);
    await surgery(lab, { ...base, model: 'tiny-llama', sweep: 'heads' });
    expect(lab.log.random).toHaveLength(1); // kept
    await surgery(lab, { ...base, model: 'tiny' });
    expect(lab.log.random.map((x) => x.architecture)).toEqual(['llama', 'gpt_neox']);
    expect(lab.log.sweeps[0].model.deleted).toBe(true); // the one it replaced
  });

  it('SurgeryJob.LoadedRunsTheModelsViewsModelOrSaysToLoadOne', async () => {
    await expect(surgery(lab, { ...base, model: 'loaded' })).rejects.toMatchObject({
      field: 'model',
      message: expect.stringMatching(/no model is loaded in the Models view/),
    });
    const config = {
      vocab_size: 50304,
      hidden_size: 64,
      num_hidden_layers: 3,
      num_attention_heads: 2,
      max_position_embeddings: 2048,
    };
    const log = { sweeps: [], maps: [] };
    fakes.loaded = {
      key: 'file:1',
      model: fakeModel('llama', config, log),
      info: { kind: 'file', name: 'SmolLM2-135M' },
      tokenizer: null,
    };
    const r = await surgery(lab, { ...base, model: 'loaded', sweep: 'layers' });
    expect(log.sweeps).toHaveLength(1);
    expect(r.model).toBe('SmolLM2-135M, loaded in the Models view');
    expect([r.random, r.context, r.shape]).toEqual([false, 2048, [3, 2]]);
    expect(r.report.interventions.map((x) => x.kind)).toEqual(['nope_layer', 'nope_layer', 'nope_layer']);
    // A GPT-2 in the Models view learns its positions: there is nothing to operate on.
    fakes.loaded = {
      ...fakes.loaded,
      key: 'file:2',
      model: { ...fakeModel('gpt2', config, log), architecture: 'gpt2' },
    };
    await expect(surgery(lab, { ...base, model: 'loaded' })).rejects.toMatchObject({ field: 'model' });
    // The Models view's random GPT-2 is not a loaded model.
    fakes.loaded = { key: 'random:mini:0', model: fakeModel('gpt2', config, log), info: { kind: 'random' } };
    await expect(surgery(lab, { ...base, model: 'loaded' })).rejects.toThrow(/no model is loaded/);
  });
});

describe('the settings and what the view reads off a report', () => {
  it('SurgerySettings.LinkTextsReadAsTheApisOptions', () => {
    expect(parsePairs('0:2, 6:8')).toEqual([
      [0, 2],
      [6, 8],
    ]);
    expect(parseHeads('0.1,12.3')).toEqual([
      [0, 1],
      [12, 3],
    ]);
    expect(parseBases('100, 1e6,2.5')).toEqual([100, 1e6, 2.5]);
    expect(parsePairs('')).toEqual([]);
    expect(singleSurgery({ zero: '', nopel: [], nopeh: '', ablate: '', rbase: 0, lbase: 0 })).toEqual({});
    expect(singleSurgery({ zero: '', nopel: [], nopeh: '', ablate: '', rbase: 0, lbase: 1e4 })).toEqual({
      ropeLocalBase: 1e4,
    });
    expect(surgeryOfParams({ fraction: 0.5, rope_zero_pairs: [[4, 8]], layer: 1 })).toEqual({
      ropeZeroPairs: [[4, 8]],
    });
    expect(surgeryOfParams({ rope_base: 100, rope_local_base: 10 })).toEqual({ ropeBase: 100, ropeLocalBase: 10 });
    expect(surgeryOfParams({ fraction: 1 })).toEqual({}); // keep top 100 %: the unmodified model
    expect(sweepOptions({ sweep: 'layers', window: 2, seed: 3, group: 4, bases: '10' })).toEqual({
      sweep: 'layers',
      window: 2,
      seed: 3,
    });
    const list = [{ delta_mean: 0.1 }, { delta_mean: -1 }, { delta_mean: 0.3 }];
    expect([0, 1, 2, 3, 4].map((s) => shownIntervention(list, s))).toEqual([2, 0, 1, 2, 2]);
    expect(shownIntervention([], 0)).toBe(-1);
  });

  it('SurgerySettings.TheLinksPatternsTakeWhatTheControlsSay', () => {
    const ok = (key, v) => SCHEMA[`sg.${key}`].check(v).ok;
    expect(['', '0:2', '0:2,4:6', '0:2, 4:6'].every((v) => ok('zero', v))).toBe(true);
    expect(['0-2', '0:2,', ':2', '0:2;4:6'].some((v) => ok('zero', v))).toBe(false);
    expect(['', '0.1', '0.1, 11.2'].every((v) => ok('nopeh', v) && ok('ablate', v))).toBe(true);
    expect(['0', '0.1.2', '0,1'].some((v) => ok('nopeh', v))).toBe(false);
    expect(['', '100', '1e6,500000', '2.5, 10'].every((v) => ok('bases', v))).toBe(true);
    expect(['-1', 'inf', '1e', '0x10'].some((v) => ok('bases', v))).toBe(false);
  });

  it('SurgeryReport.BarsAreLabelledColouredAndExported', () => {
    const report = fakeReport({ sweep: 'heads', window: 256, seed: 0 }, { layers: 1, heads: 2, pairs: 8 }, 512);
    const bars = barsOf(report);
    expect(bars.labels).toEqual([
      ['head 0.0 NoPE', 'local, positional'],
      ['head 0.0 removed', 'local, positional'],
      ['head 0.1 NoPE', 'local, positional'],
      ['head 0.1 removed', 'local, positional'],
    ]);
    expect(barLabel(report.interventions[3])).toBe('head 0.1 removed · local, positional');
    expect(bars.values).toEqual(report.interventions.map((x) => x.delta_mean));
    expect(bars.low.map((v, i) => bars.high[i] - v).every((w) => Math.abs(w - 0.1) < 1e-12)).toBe(true);
    expect(new Set(bars.colors).size).toBe(2); // NoPE and removed
    expect(legendOf(report).map((k) => k.kind)).toEqual(['nope_head', 'ablate_head']);
    const bands = fakeReport({ sweep: 'bands' }, { layers: 1, heads: 1, pairs: 8 }, 256);
    expect(barsOf(bands).labels.slice(0, 2)).toEqual(['pair 0 zeroed', 'pair 1 zeroed']);
    expect(
      barLabel({
        kind: 'zero_pairs',
        params: {
          rope_zero_pairs: [
            [0, 2],
            [6, 8],
          ],
        },
      }),
    ).toBe('pairs 0–1, pairs 6–7 zeroed');
    expect(barLabel({ kind: 'keep_top', params: { fraction: 0.75 } })).toBe('fastest 75 % kept');
    expect(barLabel({ kind: 'keep_top', params: { fraction: 1 } })).toBe('all pairs kept');
    expect(barLabel({ kind: 'keep_top', params: { fraction: 0, rope_zero_pairs: [[0, 8]] } })).toBe('no pair kept');
    expect(barLabel({ kind: 'base', params: { rope_base: 100000 } })).toBe('base 1e5');
    expect(barLabel({ kind: 'single', name: 'NoPE layer 1', params: {} })).toBe('NoPE layer 1');
    const csv = deltasCsv(report).trim().split('\n');
    expect(csv[0]).toBe(
      'intervention,kind,loss_mean,delta_mean,delta_ci_low,delta_ci_high,delta_within_context,delta_past_context,role',
    );
    expect(csv).toHaveLength(5);
    expect(csv[1]).toBe('head 0.0 NoPE,nope_head,2.1,0.1,0.05,0.15,0.05,0.2,"local, positional"');
    expect(JSON.parse(reportJson(report))).toEqual(report);
  });
});
