// The Surgery view's job (docs/surgery.md), on the language-model module's worker: a sweep of
// position surgery — interventions inside the forward pass (zeroed rotation pairs, NoPE layers
// or heads, another base, ablated heads) — and its change in next-token loss per intervention,
// then one head's attention map before and after the intervention the figures show. The lab's
// shipped model runs on the training module (textSurgery, textLensMap), random tiny models and
// the model loaded in the Models view on the language-model module (model.surgery,
// model.lensMap); a loaded model is the Models view's, so its sweep runs on that view's shared
// worker, between its jobs. The last sweep stays here: picking another bar or head costs two
// traced passes (the maps), not the sweep again.
import { architecture } from '../../lm/architectures.js';
import { visibleToken } from '../../lm/format.js';
import { loadTokenizer } from '../../lm/tokenizer.js';
import { fieldError } from '../../state/combinations.js';
import { headOutsideShape, parseHead } from '../../state/lens-head.js';
import { shownIntervention, surgeryOfParams, sweepOptions } from '../../state/surgery-settings.js';
import { heldOutSample, LAB_MODEL } from './lab-rope.js';
import { shippedModelAndText } from './lens.js';
import { withLoadedModel } from './lm.js';
import { randomModel } from './lm-models.js';
import { etaText } from './passes.js';

/** Tokens each attention map shows at most (the first window's first ones). */
export const SURGERY_MAP_MAX = 256;
export const SURGERY_MODELS = ['lab-rope', 'loaded', 'tiny', 'tiny-llama'];
const SEED = 0; // the tiny models' random weights

const byteLabels = (ids) => Array.from(ids, (b) => visibleToken(String.fromCharCode(b)));
const HELD_OUT = 'the held-out tenth of the lab’s sample (the end of GPL-3)';

let tiny = null; // { key, model, tokenizer }: the random tiny model the last request named
let last = null; // { key, report, ms }: the last sweep

/** The lab's shipped model on the text's bytes (at most `len` of them). */
async function labSubject(p, progress) {
  const { train, weights, config, N, bytes } = await shippedModelAndText(p, progress);
  const tokens = Int32Array.from(bytes.subarray(0, Math.min(bytes.length, p.len)));
  return {
    key: LAB_MODEL,
    label: `a byte-level RoPE model trained by the lab (${config.n_layer} layers × ${config.n_head} heads, context ${N})`,
    random: false,
    rope: true,
    unit: 'bytes',
    tokenizer: 'none (bytes)',
    source: p.text ? 'your text' : `${HELD_OUT}, never trained on`,
    textLength: bytes.length,
    tokens,
    labels: byteLabels,
    shape: [config.n_layer, config.n_head],
    context: N,
    threads: 'one thread (the training module)',
    sweep: (o) => train.textSurgery(weights, tokens, o),
    map: (ids, o) => train.textLensMap(weights, ids, o),
  };
}

/** A language model (a tiny random one, or the Models view's) on the text's tokens. */
async function lmSubject(lab, p, made) {
  const { model, tokenizer, key, label, random, tokenizerLabel } = made;
  const arch = architecture(model.architecture ?? 'gpt2');
  if (!arch.rope) {
    throw fieldError(
      'model',
      `${arch.name} learns its positions: position surgery works on rotations (load a GPT-NeoX or Llama-family model in the Models view)`,
    );
  }
  const text = p.text ? p.text : new TextDecoder().decode(await heldOutSample());
  const ids = tokenizer.encode(text);
  const bad = ids.findIndex((id) => id >= model.config.vocab_size);
  if (bad >= 0) throw fieldError('tokens', `token ${bad} has id ${ids[bad]}, outside the model’s vocabulary`);
  const tokens = Int32Array.from(ids.slice(0, Math.min(ids.length, p.len)));
  return {
    key,
    label,
    random,
    rope: true,
    unit: 'tokens',
    tokenizer: tokenizerLabel,
    source: p.text ? 'your text' : HELD_OUT,
    textLength: ids.length,
    tokens,
    labels: (ids) => Array.from(ids, (id) => visibleToken(tokenizer.piece(id))),
    shape: [arch.layers(model.config), arch.heads(model.config)],
    context: arch.context(model.config),
    threads: lab.runtime?.note,
    sweep: (o) => model.surgery(tokens, o),
    map: (ids, o) => model.lensMap(ids, o),
  };
}

/** The random tiny model `name`, kept while requests name it. */
async function tinyModel(lab, name, progress) {
  const key = `random:${name}`;
  if (tiny?.key !== key) {
    tiny?.model.delete();
    tiny = null;
    progress?.({ phase: 'model' });
    const { model, label } = randomModel(lab, name, SEED);
    tiny = { key, model, label, tokenizer: await loadTokenizer() };
  }
  return { ...tiny, random: true, tokenizerLabel: 'GPT-2’s tokenizer' };
}

/** The Models view's model as lmSubject takes it; refused (field 'model') when there is none. */
async function loadedModel(current) {
  if (current?.info?.kind !== 'file') {
    throw fieldError(
      'model',
      'no model is loaded in the Models view: load a GPT-NeoX or Llama-family model there (a hub button or its files), then come back',
    );
  }
  const { info } = current;
  return {
    key: current.key,
    model: current.model,
    label: `${info.name}, loaded in the Models view`,
    random: false,
    tokenizer: current.tokenizer ?? (await loadTokenizer()),
    tokenizerLabel: current.tokenizer ? 'the model’s tokenizer.json' : 'GPT-2’s tokenizer',
  };
}

/** The sweep of `subject` under these settings: the kept one when nothing it reads changed. */
function sweepOf(subject, p, progress) {
  const options = sweepOptions(p);
  const key = JSON.stringify([subject.key, Array.from(subject.tokens), options]);
  if (last?.key === key) return { ...last, cached: true };
  last = null;
  const t0 = performance.now();
  progress?.({ phase: 'sweep', done: 0, total: 0, eta: '' });
  // A shared flag the page raises on Cancel (a sweep on the Models view's worker, which is
  // never ended): throwing here stops the sweep at its next pass.
  const onProgress = (done, total) => {
    if (p.stop && Atomics.load(p.stop, 0) !== 0) throw new Error('the sweep was cancelled');
    progress?.({ phase: 'sweep', done, total, eta: etaText(done, total, performance.now() - t0) });
  };
  const report = subject.sweep({ ...options, onProgress });
  last = { key, report, ms: performance.now() - t0 };
  return { ...last, cached: false };
}

/** The head's attention maps on the first window, unmodified and under intervention `x`. */
function mapsOf(subject, p, x, progress) {
  const { layer, head } = parseHead(p.head);
  const missing = headOutsideShape(p.head, ...subject.shape) ?? '';
  if (missing || !x) return { missing, heatmaps: {}, mapTokens: 0 };
  progress?.({ phase: 'map' });
  const ids = subject.tokens.subarray(0, Math.min(subject.tokens.length, p.window, SURGERY_MAP_MAX));
  const labels = subject.labels(ids);
  const heatmap = (surgery) => {
    const m = subject.map(ids, { layer, head, surgery });
    return {
      data: m.attention,
      rows: m.size,
      cols: m.size,
      cmap: 'viridis',
      range: [0, 1],
      xLabels: labels,
      yLabels: labels,
    };
  };
  return {
    missing,
    heatmaps: { before: heatmap({}), after: heatmap(surgeryOfParams(x.params)) },
    mapTokens: ids.length,
  };
}

/** The sweep, the intervention shown and its maps, for one subject. */
function run(subject, p, progress) {
  if (subject.tokens.length < 2) throw fieldError('tokens', `the text needs at least 2 ${subject.unit}`);
  if (p.sweep === 'single' && !Object.keys(sweepOptions(p).surgery).length) {
    throw fieldError(
      'zero',
      'your intervention is empty: give zeroed pairs, position-blind layers or heads, heads to remove, or a base',
    );
  }
  const t0 = performance.now();
  const { report, ms, cached } = sweepOf(subject, p, progress);
  const shown = shownIntervention(report.interventions, p.show);
  const t1 = performance.now();
  const maps = mapsOf(subject, p, report.interventions[shown], progress);
  return {
    report,
    shown,
    ...maps,
    head: parseHead(p.head),
    model: subject.label,
    random: subject.random,
    unit: subject.unit,
    tokenizer: subject.tokenizer,
    source: subject.source,
    textLength: subject.textLength,
    tokens: subject.tokens.length,
    shape: subject.shape,
    context: subject.context,
    threads: subject.threads ?? 'one thread',
    cached,
    ms: { sweep: cached ? 0 : ms, maps: performance.now() - t1, all: performance.now() - t0 },
  };
}

/**
 * p: { model: 'lab-rope' | 'loaded' | 'tiny' | 'tiny-llama', text?: string ('' or absent: the
 * held-out sample), sweep: 'bands' | 'layers' | 'heads' | 'base' | 'single', group, bases,
 * zero, nopel, nopeh, ablate, rbase, lbase (the single intervention), window, len (tokens read
 * at most), seed (the bootstrap's), show (the bar the figures show, from 1; 0: the largest
 * change), head ('layer.head' of the maps) }. Result: { report (surgery.json's keys), shown
 * (its index in report.interventions, -1: none), heatmaps: { before, after } (query × key),
 * missing (why the head has no maps, or ''), head, model, random, unit, tokenizer, source,
 * textLength, tokens, shape: [layers, heads], context, threads, cached, ms }.
 */
export async function surgery(lab, p, ctx = {}) {
  const { progress } = ctx;
  if (!SURGERY_MODELS.includes(p.model)) throw fieldError('model', `unknown model '${p.model}'`);
  if (p.model === LAB_MODEL) return run(await labSubject(p, progress), p, progress);
  if (p.model === 'loaded') {
    return withLoadedModel(async (current) => run(await lmSubject(lab, p, await loadedModel(current)), p, progress));
  }
  return run(await lmSubject(lab, p, await tinyModel(lab, p.model, progress)), p, progress);
}
