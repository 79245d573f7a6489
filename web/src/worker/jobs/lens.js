// The Position lens view's job (docs/lens.md), on the language-model module: the lens's report
// on one model and a text (per head its role, scores and attention by distance, for RoPE models
// its score energy per rotation pair; the shift check; the shuffle passes), a second report to
// compare with (the same shapes with random weights, or the same model with a RoPE scaling),
// and the selected head's attention map. The lab's model runs on the training module
// (jobs/lab-rope.js). Models and reports stay in the worker between requests: picking another
// head costs one traced pass (the map), not the lens again.
import { architecture } from '../../lm/architectures.js';
import { visibleToken } from '../../lm/format.js';
import { loadTokenizer } from '../../lm/tokenizer.js';
import { fieldError } from '../../state/combinations.js';
import { headOutsideShape, parseHead, reportShape } from '../../state/lens-head.js';
import { heldOutSample, LAB_MODEL, shippedCheckpoint, trainModule } from './lab-rope.js';
import { fileKey, fileModel, randomModel } from './lm-models.js';

/** Tokens the lens reads at most: the model's trained context, and no more than this. */
export const LENS_MAX_TOKENS = 256;
const SEED = 0; // the random models' weights (and the lab model's initialisation); a tiny model's control: SEED + 1

/** The lab's checkpoint's config (safetensors __metadata__.config, train/checkpoint.hpp's keys). */
export function labCheckpointConfig(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  return JSON.parse(header.__metadata__.config);
}

/**
 * The lab's shipped model and the text it reads (p.text's bytes, or the held-out sample's):
 * { train (the training module), weights, config, N (its trained context), bytes }.
 */
export async function shippedModelAndText(p, progress) {
  progress?.({ phase: 'model' });
  const [train, weights] = await Promise.all([trainModule(), shippedCheckpoint()]);
  const config = labCheckpointConfig(weights);
  const bytes = p.text ? encode(p.text) : await heldOutSample();
  return { train, weights, config, N: config.train_len ?? config.n_positions, bytes };
}

/**
 * createRun's options for a run of `config`'s model (a lab checkpoint's) that takes no step:
 * its checkpoint is that model at its random initialisation, the trained model's control.
 */
export function randomInitOptions(config, seed = 0) {
  const N = config.train_len ?? config.n_positions;
  return {
    task: 'text',
    position: config.position,
    trainLen: N,
    testLen: N,
    layers: config.n_layer,
    width: config.n_embd,
    heads: config.n_head,
    embedScale: config.embed_scale,
    steps: 0,
    seed,
  };
}

/** The keys of two lab checkpoint configs whose values differ ('key a → b'). */
export function configDifferences(a, b) {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.filter((k) => a[k] !== b[k]).map((k) => `${k} ${a[k]} → ${b[k]}`);
}

const encode = (t) => new TextEncoder().encode(t);
const byteLabels = (bytes) => Array.from(bytes, (b) => visibleToken(String.fromCharCode(b)));

// What stays in the worker: the model a request named (one at a time), its control, the
// random-initialisation checkpoint of the lab's model, and the last reports.
let current = null; // { key, model, tokenizer, tokenizerLabel, label, arch, configText }
let control = null; // { key, model }
let labControl = null; // { checkpoint, differs }
let reports = null; // { key, report, second }

function forget(slot) {
  slot?.model?.delete();
  return null;
}

/** The lab's model on the text's bytes (at most its trained context): what the lens runs on. */
async function labSubject(p, progress) {
  const { train, weights, config, N, bytes } = await shippedModelAndText(p, progress);
  if (bytes.length < 2) throw fieldError('text', 'the text needs at least 2 bytes');
  const tokens = Int32Array.from(bytes.subarray(0, Math.min(bytes.length, N)));
  const randomInit = async () => {
    if (!labControl) {
      // The text task needs a text to make a run; no step reads it.
      const { LICENCE_SAMPLE } = await import('../../content/licences/index.js');
      const run = train.createRun({ ...randomInitOptions(config, SEED), text: encode(LICENCE_SAMPLE) });
      try {
        const checkpoint = run.checkpoint();
        labControl = { checkpoint, differs: configDifferences(config, labCheckpointConfig(checkpoint)) };
      } finally {
        run.dispose();
      }
    }
    return labControl;
  };
  return {
    key: LAB_MODEL,
    short: 'trained',
    label: `a byte-level RoPE model trained by the lab (${config.n_layer} layers × ${config.n_head} heads, context ${N})`,
    random: false,
    rope: true,
    context: N,
    unit: 'bytes',
    source: p.text ? 'your text' : 'the held-out tenth of the lab’s sample (the end of GPL-3), never trained on',
    textLength: bytes.length,
    tokens,
    labels: byteLabels(tokens),
    lens: (o) => train.textLens(weights, tokens, o),
    lensMap: (o) => train.textLensMap(weights, tokens, o),
    async control() {
      const { checkpoint, differs } = await randomInit();
      return {
        short: 'random init',
        label: `the same model at its random initialisation (a training run of 0 steps, seed ${SEED}${differs.length ? `; its config differs: ${differs.join(', ')}` : ''})`,
        lens: (o) => train.textLens(checkpoint, tokens, o),
      };
    },
  };
}

/** A random tiny model or a local checkpoint, kept while requests name it. */
async function lmModel(lab, p, progress) {
  const key = p.model === 'file' ? `file:${fileKey(p.files)}` : `random:${p.model}`;
  if (current?.key === key) return current;
  current = forget(current);
  control = forget(control);
  progress?.({ phase: 'model' });
  let made;
  if (p.model === 'file') {
    if (!p.files?.weights || !p.files?.config) {
      throw fieldError('model', 'pick a .safetensors checkpoint and its config.json');
    }
    made = await fileModel(lab, p.files, progress);
  } else {
    const { model, label } = randomModel(lab, p.model, SEED);
    made = { model, label, tokenizer: null, arch: architecture(model.architecture ?? 'gpt2') };
  }
  const tokenizer = made.tokenizer ?? (await loadTokenizer());
  const tokenizerLabel = made.tokenizer ? 'the model’s tokenizer.json' : 'GPT-2’s tokenizer';
  current = { ...made, key, tokenizer, tokenizerLabel };
  return current;
}

// The language-model module names an architecture's functions <api>Loader and <api>Random
// (core/lm-common.js familyMethods): a loaded model's random twin is made from its config.json.
const randomOf = (arch) => arch.loader.replace(/Loader$/, 'Random');

/** A language model on the text's tokens (at most its context and LENS_MAX_TOKENS). */
async function lmSubject(lab, p, progress) {
  const m = await lmModel(lab, p, progress);
  const text = p.text ? p.text : new TextDecoder().decode(await heldOutSample());
  const ids = m.tokenizer.encode(text);
  if (ids.length < 2) throw fieldError('text', 'the text needs at least 2 tokens');
  const N = m.arch.context(m.model.config);
  const tokens = Int32Array.from(ids.slice(0, Math.min(ids.length, N, LENS_MAX_TOKENS)));
  const file = p.model === 'file';
  return {
    key: m.key,
    short: file ? 'loaded' : `seed ${SEED}`,
    label: m.label,
    threads: lab.runtime?.note,
    random: !file,
    rope: m.arch.rope,
    unscalable: m.arch.rope
      ? null
      : `${m.arch.name} learns its positions: it has no rotation to scale; compare it with random weights`,
    context: N,
    unit: 'tokens',
    tokenizer: m.tokenizerLabel,
    source: p.text ? 'your text' : 'the held-out tenth of the lab’s sample (the end of GPL-3)',
    textLength: ids.length,
    tokens,
    labels: Array.from(tokens, (id) => visibleToken(m.tokenizer.piece(id))),
    lens: (o) => m.model.lens(tokens, o),
    lensMap: (o) => m.model.lensMap(tokens, o),
    async control() {
      if (control?.key !== m.key) {
        control = forget(control);
        progress?.({ phase: 'control' });
        const model = file
          ? lab[randomOf(m.arch)]({ config: m.configText, seed: SEED })
          : randomModel(lab, p.model, SEED + 1).model;
        control = { key: m.key, model };
      }
      const twin = control.model;
      return {
        short: file ? 'random' : `seed ${SEED + 1}`,
        label: file
          ? `random weights of the same shapes (seed ${SEED})`
          : `the same shapes with other random weights (seed ${SEED + 1})`,
        lens: (o) => twin.lens(tokens, o),
      };
    },
  };
}

/**
 * p: { model: 'lab-rope' | 'tiny' | 'tiny-llama' | 'file', files?: { weights: File, config: File,
 * tokenizer?: File }, text?: string ('' or absent: the sample), compare: 'none' | 'random' |
 * 'scaled', scaling, factor, head: 'layer.head' }. Result: { report, second (the comparison's
 * report or null), secondLabel, names (short names of the one or two reports), model, random,
 * rope, context, unit, tokenizer, source, textLength, tokens (their labels), head:
 * { layer, head }, missing (why the head has no map, or ''), heatmaps: { map } (the head's
 * attention, query × key) }.
 */
export async function lens(lab, p, ctx = {}) {
  const { progress } = ctx;
  const subject = p.model === LAB_MODEL ? await labSubject(p, progress) : await lmSubject(lab, p, progress);
  if (p.compare === 'scaled' && subject.unscalable) throw fieldError('compare', subject.unscalable);
  const rope = p.compare === 'scaled' ? { scaling: p.scaling, factor: p.factor } : null;
  const key = JSON.stringify([subject.key, Array.from(subject.tokens), p.compare, rope]);
  const t0 = performance.now();
  if (reports?.key !== key) {
    reports = null;
    progress?.({ phase: 'lens' });
    const report = subject.lens({});
    let second = null;
    let secondLabel = '';
    let names = [subject.short];
    if (p.compare === 'random') {
      const twin = await subject.control();
      progress?.({ phase: 'lens', control: true });
      second = twin.lens({});
      secondLabel = twin.label;
      names = [subject.short, twin.short];
    } else if (rope) {
      progress?.({ phase: 'lens', control: true });
      second = subject.lens({ rope });
      secondLabel = `the same model with ${rope.scaling} scaling × ${rope.factor}`;
      names = ['as configured', `${rope.scaling} × ${rope.factor}`];
    }
    reports = { key, report, second, secondLabel, names };
  }
  const { report, second, secondLabel, names } = reports;
  const lensMs = performance.now() - t0;
  const { layer, head } = parseHead(p.head);
  const missing = headOutsideShape(p.head, ...reportShape(report)) ?? '';
  const heatmaps = {};
  if (!missing) {
    progress?.({ phase: 'map' });
    const map = subject.lensMap({ layer, head });
    heatmaps.map = {
      data: map.attention,
      rows: map.size,
      cols: map.size,
      cmap: 'viridis',
      xLabels: subject.labels,
      yLabels: subject.labels,
    };
  }
  return {
    report,
    second,
    secondLabel,
    names,
    compare: p.compare,
    model: subject.label,
    random: subject.random,
    rope: subject.rope,
    context: subject.context,
    unit: subject.unit,
    tokenizer: subject.tokenizer ?? 'none (bytes)',
    source: subject.source,
    textLength: subject.textLength,
    tokens: subject.labels,
    threads: subject.threads ?? 'one thread (the training module)',
    head: { layer, head },
    missing,
    heatmaps,
    ms: { lens: lensMs, all: performance.now() - t0 },
  };
}
