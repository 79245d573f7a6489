// Every view of the playground, declared once (TensorFlow Playground's State.PROPS, per view):
// its name, URL prefix, tab title, navigation group, settings (the URL schema of its controls), figures by
// stable name (what embeds address), the worker job it runs, and which of its settings an error
// field names. Tabs, routing, the URL state, the combination rules, embeds and the gallery read
// this list, and so does SCHEMA. It imports no view: views/loaders.js loads their code (on
// first use), so the views may import this file without an import circle.
import {
  BIASES,
  EMBEDDING_METHODS,
  GPT2_POSITIONS,
  METHOD_ALIASES,
  METHODS,
  optionDefault,
  ROTATIONS,
  LAB_METHODS,
  TRAINER_METHODS,
  TEXT_METHODS,
  VECTOR_METHODS,
} from './methods.js';
import { CMAPS } from './colormaps.js';
import { bool, int, intList, nameList, num, oneOf, text, token } from './types.js';
import { ROPE_CONFIG_CHOICES } from './rope-configs.js';
import { BASES_RE, HEADS_RE, PAIRS_RE } from './surgery-settings.js';
import { STEPS_BY_TASK } from './train-defaults.js';

export { BIASES, GPT2_POSITIONS, METHODS, VECTOR_METHODS };

// The core's names and defaults the settings use: the position methods come from the core's
// table (state/methods.js); the rest is one copy on the web side, checked against the core's
// own lists (lab.names, lab.defaults) by tests/web/names.test.js.
export const SCALINGS = ['none', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3'];
export const ROPE_STYLES = ['neox', 'gptj'];
export const LAYOUTS = ['interleaved', 'concat'];
export const METRICS = ['cosine', 'dot'];
export const MASKS = ['none', 'causal', 'window', 'custom']; // 'custom': the page's own (cells drawn on it)
export const CORE_DEFAULTS = {
  base: 10000,
  layout: 'interleaved',
  metric: 'cosine',
  rope: { style: 'neox', lowFreqFactor: 1, highFreqFactor: 4, betaFast: 32, betaSlow: 1 },
  t5: { numBuckets: 32, maxDistance: 128 },
};

export { CMAPS }; // the colour maps' one list (state/colormaps.js, which their generator reads)
export const GPT2_INITS = ['mini', 'small'];
// Old links wrote NoPE as 'nope' (METHOD_ALIASES, from the table's aliases); they still open
// (read as 'none', written back as 'none').

// Custom attention mask: "<L>.<base64url bits, row-major, query × key, 1 = hidden>".
export const CUSTOM_MASK_RE = /^$|^[1-9]\d{0,1}\.[A-Za-z0-9_-]{1,700}$/;

const { rope, t5 } = CORE_DEFAULTS;
const base = num(CORE_DEFAULTS.base, 1.0001, 1e9);
const layout = oneOf(LAYOUTS, CORE_DEFAULTS.layout);
const style = oneOf(ROPE_STYLES, rope.style);
const seed = int(0, 0, 2147483647);
const cmap = (def) => oneOf(CMAPS, def);

/**
 * @typedef {{ title: string, height?: number, aliases?: string[] }} FigureDecl a figure of a
 *   view; with `height` an embed may show it alone as `<view>.<name>` (aliases: older names).
 * @typedef {{ name: string, prefix?: string, title: string, group: string, settings?: Record<string, any>,
 *   figures?: Record<string, FigureDecl>, embed?: { height: number } | null, job?: string,
 *   fields?: Record<string, string | ((p: any) => string)>, was?: { name: string, prefix: string },
 *   primary?: string }} ViewDecl
 *   `fields`: an error's field (a core option's camelCase name, or a job's parameter) → the
 *   setting it is about, where the names differ; a field that is one of the view's settings
 *   needs no entry. `was`: the view's former name and prefix, read from links, never written.
 *   `primary`: its primary control (a CSS selector in the view's section: what a person came
 *   to pick or press), which comes before the figures on narrow screens (ui/primary.js).
 */

/**
 * What a person came to do, in the order the navigation shows them: each view names its group
 * (`group`), and the tabs are these groups with their views in the registry's order.
 * @type {{ name: string, title: string }[]}
 */
export const GROUPS = [
  { name: 'learn', title: 'Learn' },
  { name: 'experiment', title: 'Experiment' },
  { name: 'models', title: 'Models' },
  { name: 'benchmarks', title: 'Benchmarks' },
];

/** @type {ViewDecl[]} in tab order within each group */
export const VIEWS = [
  {
    // The landing (a link with no hash): what PosLab is and where to start, one screen.
    name: 'start',
    title: 'Start here',
    group: 'learn',
  },
  {
    name: 'encodings',
    prefix: 'enc',
    title: 'Encodings',
    primary: '.control:has(#c-enc-method)',
    group: 'learn',
    // The defaults reproduce seed 002's 50 × 512 viridis table (content/gallery.js).
    settings: {
      method: oneOf(METHODS, 'sinusoidal', METHOD_ALIASES),
      L: int(50, 1, 8192),
      D: int(512, 2, 4096),
      base,
      layout,
      style,
      heads: int(8, 1, 64),
      head: int(0, 0, 63),
      buckets: int(t5.numBuckets, 2, 1024),
      maxdist: int(t5.maxDistance, 1, 65536),
      bidir: bool(true),
      // A decaying rotation's scale base s (the core's table's default); combinations.js keeps
      // ζ^(e/s) within float32.
      scalebase: num(optionDefault('scaleBase'), 1, 1e6),
      // The kept fraction of RoPE's frequencies, for a method with that option (the table's default).
      keep: num(optionDefault('keepFraction'), 0, 1),
      clip: int(4, 0, 8192),
      seed,
      pos: intList([0, 1, 2, 10, 25, 49], 0, 65535, 16),
      dims: intList([0, 2, 8, 32], 0, 65535, 16),
      cmap: cmap('viridis'),
    },
    figures: {
      table: { title: 'Encoding table', height: 470, aliases: ['heatmap', 'table'] },
      vectors: { title: 'Vectors of chosen positions', height: 350 },
      waves: { title: 'Waves of chosen dimensions', height: 350 },
      slopes: { title: 'ALiBi slopes' },
    },
    embed: { height: 1400 },
    job: 'encodings',
    fields: {
      length: 'L',
      dim: 'D',
      queryLength: 'L',
      keyLength: 'L',
      numBuckets: 'buckets',
      maxDistance: (p) => (p.method === 'shaw' ? 'clip' : 'maxdist'),
      bidirectional: 'bidir',
      scaleBase: 'scalebase',
      keepFraction: 'keep',
    },
  },
  {
    name: 'similarity',
    prefix: 'sim',
    title: 'Similarity',
    primary: '.control:has(#c-sim-method)',
    group: 'learn',
    // Seed 001's 300 × 512 cosine similarity.
    settings: {
      method: oneOf(VECTOR_METHODS, 'sinusoidal', METHOD_ALIASES),
      L: int(300, 1, 4096),
      D: int(512, 2, 4096),
      base,
      layout,
      style,
      metric: oneOf(METRICS, CORE_DEFAULTS.metric),
      seed,
      cmap: cmap('Blues'),
    },
    figures: {
      matrix: { title: 'Similarity matrix', height: 510 },
      offset: { title: 'Mean similarity by offset', height: 350 },
      decay: { title: 'RoPE decay bound' },
    },
    embed: { height: 1200 },
    job: 'similarity',
    fields: { length: 'L', dim: 'D', headDim: 'D', maxDistance: 'L' },
  },
  {
    name: 'extrapolation',
    prefix: 'ext',
    title: 'Out-of-scope lengths',
    primary: '.control:has(#c-ext-scaling)',
    group: 'learn',
    // Seed 000's 50 vs 100 at D = 64.
    settings: {
      N: int(50, 1, 4096),
      L: int(100, 1, 4096),
      D: int(64, 2, 1024),
      base,
      scaling: oneOf(SCALINGS, 'yarn'),
      factor: num(2, 1, 1024),
      lowff: num(rope.lowFreqFactor, 0.001, 1000),
      highff: num(rope.highFreqFactor, 0.001, 1000),
      bfast: num(rope.betaFast, 0.001, 1e6),
      bslow: num(rope.betaSlow, 0.001, 1e6),
      cmap: cmap('viridis'),
    },
    figures: {
      train: { title: 'Trained positions' },
      eval: { title: 'Evaluation positions' },
      nearest: { title: 'Closeness to a trained position' },
      freq: { title: 'RoPE inv_freq' },
      ratio: { title: 'Scaled / original inv_freq' },
      wavelengths: { title: 'Wavelengths' },
      offset: { title: 'RoPE cosine by offset' },
    },
    embed: { height: 2200 },
    job: 'extrapolation',
    fields: {
      headDim: 'D',
      dim: 'D',
      totalLength: 'L',
      length: 'L',
      originalLength: 'N',
      lowFreqFactor: 'lowff',
      highFreqFactor: 'highff',
      betaFast: 'bfast',
      betaSlow: 'bslow',
    },
  },
  {
    name: 'offset',
    prefix: 'off',
    title: 'Offset matrix',
    primary: '.control:has(#c-off-k)',
    group: 'learn',
    settings: {
      D: int(16, 2, 1024),
      k: int(3, -65536, 65536),
      p: int(10, 0, 65536),
      base,
    },
    figures: {
      matrix: { title: 'Offset matrix M_k', height: 470 },
      sides: { title: 'PE(p + k) and M_k · PE(p)' },
      residual: { title: 'Offset residual', height: 350 },
    },
    embed: { height: 1200 },
    job: 'offset',
    fields: { dim: 'D', offset: 'p' },
  },
  {
    name: 'attention',
    prefix: 'att',
    title: 'Attention & masks',
    primary: '.control:has(#c-att-pe)',
    group: 'learn',
    settings: {
      text: text('the quick brown fox jumps over the lazy dog [PAD] [PAD]', 400),
      input: oneOf(['tokens', 'position'], 'tokens'),
      pe: oneOf(EMBEDDING_METHODS, 'sinusoidal'),
      // The rotation of q and k: 'none' or a rotation method. Links from when this was RoPE's
      // checkbox (att.rope=1 / 0) still open.
      rope: oneOf(['none', ...ROTATIONS], 'none', { 1: 'rope', true: 'rope', 0: 'none', false: 'none' }),
      bias: oneOf(BIASES, 'none'),
      mask: oneOf(MASKS, 'causal'),
      window: int(3, 1, 64),
      pad: bool(true),
      custom: token('', CUSTOM_MASK_RE, 704),
      D: int(64, 2, 1024),
      H: int(4, 1, 16),
      head: int(0, 0, 15),
      seed,
      cmap: cmap('viridis'),
    },
    figures: {
      scores: { title: 'Raw scores' },
      bias: { title: 'Position bias' },
      mask: { title: 'Mask' },
      logits: { title: 'Scores + bias + mask' },
      weights: { title: 'Softmax weights' },
      output: { title: 'Head output' },
      heads: { title: 'Weights of every head' },
      entropy: { title: 'Attention entropy per head' },
    },
    embed: { height: 1600 },
    job: 'attention',
    fields: { heads: 'H', dim: 'D', keyPadding: 'pad', customMask: 'custom' },
  },
  {
    name: 'long-context',
    prefix: 'lc',
    title: 'Long context',
    primary: '.control:has(#c-lc-model)',
    group: 'experiment',
    // The text and a local checkpoint stay on the page; the model choice and scaling travel.
    settings: {
      // The lab's trained byte-level model by default: it runs at once, so the view opens with
      // a trained model's curves.
      model: oneOf(['lab-rope', 'tiny', 'tiny-llama', 'pythia-70m', 'file'], 'lab-rope'),
      times: int(4, 1, 8),
      factor: num(4, 1, 64),
      smooth: int(64, 1, 4096),
    },
    figures: { curves: { title: 'Next-token loss by position' } },
    embed: null, // minutes of compute: not for an embed
    // Its job (longContext) runs on the language-model module: LM_JOBS, not JOBS.
    fields: { text: 'model', methods: 'model' },
  },
  {
    name: 'length-generalisation',
    prefix: 'lg',
    title: 'Length generalisation',
    primary: '.lg-actions',
    group: 'experiment',
    // Training runs only when asked (Train); finished runs are cached in IndexedDB.
    settings: {
      task: oneOf(['copy', 'reverse', 'sort', 'addition'], 'copy'),
      N: int(8, 2, 16),
      size: oneOf(['default', 'small', 'deep'], 'default'),
      methods: nameList(LAB_METHODS, TRAINER_METHODS),
      steps: int(0, 0, 20000),
      embedScale: num(0, 0, 64), // 0: each method's (the core's defaults table)
      seed: int(0, 0, 1000000),
      seeds: int(3, 1, 10), // lab/presets.js SEEDS (not imported: the lab stays out of the page's chunk)
      coupled: bool(false), // addition: position coupling (Cho et al. 2024), lab/presets.js runPlan
      pad: bool(true), // addition: operands zero-padded to N digits (Lee et al. 2023), runPlan
      // Options every run takes (lab/presets.js runPlan): attention sinks (gpt-oss) on every
      // method; NoPE layers every K and Llama 4's temperature on them (floor 0: off) on the
      // rotations.
      sinks: bool(false),
      nopeEvery: int(0, 0, 16),
      attnFloor: num(0, 0, 1000000),
      attnScale: num(0.1, 0, 10),
    },
    figures: {
      loss: { title: 'Training loss' },
      accuracy: { title: 'Exact match by length' },
      heatmap: { title: 'Exact match: methods × lengths' },
      tokens: { title: 'Per-token accuracy by answer position' },
      attention: { title: 'Attention maps of a test example' },
    },
    embed: null, // minutes of training: not for an embed
  },
  {
    name: 'text-lab',
    prefix: 'tl',
    title: 'Train short, test long',
    primary: '.lg-actions',
    group: 'experiment',
    // Training runs only when asked (Train); the text stays on the page, never in the link.
    settings: {
      // Any of the trainer's methods (the table's); by default Press et al.'s four (sinusoidal,
      // RoPE, ALiBi, T5), learned positions and NoPE: a choice among them, which
      // tests/web/method-lists.test.js checks the table still has.
      methods: nameList(TEXT_METHODS, ['learned', 'sinusoidal', 'rope', 'alibi', 't5', 'none']),
      N: int(64, 8, 256),
      M: int(1024, 8, 4096), // the core's kMaxTextContext; at least N (the view reads max(M, N))
      steps: int(STEPS_BY_TASK.text, 1, 20000), // the core's, as the CLI's
      seed: int(0, 0, 1000000),
      // The lab's attention options, as the Length generalisation view's.
      sinks: bool(false),
      nopeEvery: int(0, 0, 16),
      attnFloor: num(0, 0, 1000000),
      attnScale: num(0.1, 0, 10),
    },
    figures: {
      context: { title: 'Held-out loss by context' },
      scaling: { title: 'RoPE with each scaling, no fine-tuning' },
      loss: { title: 'Training loss' },
    },
    embed: null, // minutes of training: not for an embed
    fields: { trainLen: 'N', testLen: 'M' },
  },
  {
    name: 'gallery',
    title: 'Seed gallery',
    group: 'learn',
  },
  {
    name: 'benchmarks',
    title: 'Benchmarks',
    primary: '.bench-local',
    group: 'benchmarks',
  },
  {
    name: 'lm',
    prefix: 'lm',
    was: { name: 'gpt2', prefix: 'gpt' }, // older links (#view=gpt2&gpt.text=…) still open it
    title: 'Models',
    primary: '.lm-hub',
    group: 'models',
    // A loaded checkpoint is not part of the link: the file stays on the machine.
    settings: {
      text: text('The cat sat on the mat because it was warm', 2000),
      position: oneOf(GPT2_POSITIONS, 'learned'),
      layer: int(0, 0, 47),
      head: int(0, 0, 31),
      init: oneOf(GPT2_INITS, 'mini'),
    },
    figures: {},
    embed: null, // a local checkpoint cannot travel in an embed
    // Its job's errors: the text's tokens (the job's check and the core's: 'tokens'; GPT-NeoX's
    // traced length: 'trace'), the random init (the job's 'shape'; the core's preset or config).
    // 'source' (a loaded model gone from the worker) names no setting: the view shows it beside
    // its file input.
    fields: { tokens: 'text', trace: 'text', shape: 'init', preset: 'init', config: 'init' },
  },
  {
    name: 'lens',
    prefix: 'ln',
    title: 'Position lens',
    primary: '.control:has(#c-ln-model), .control:has(#c-ln-compare)',
    group: 'models',
    // The text and a local checkpoint stay on the page; the model, the comparison and the head
    // ('layer.head', picked in the grid; one the model lacks is said in the view, not refused
    // here: a local checkpoint's shape is known only once loaded) travel.
    settings: {
      model: oneOf(['lab-rope', 'tiny', 'tiny-llama', 'file'], 'lab-rope'),
      compare: oneOf(['none', 'random', 'scaled'], 'none'),
      scaling: oneOf(SCALINGS.slice(1), 'yarn'),
      factor: num(4, 1, 64),
      head: token('0.0', /^(0|[1-9]\d?)\.(0|[1-9]\d?)$/, 5), // 'layer.head' (state/lens-head.js parseHead)
      smooth: int(8, 1, 256), // the loss-by-position plot's moving average (1: the raw losses)
    },
    figures: {
      grid: { title: 'Head roles', height: 380 },
      profile: { title: 'Attention by distance', height: 420 },
      spectrum: { title: 'Score energy per rotation pair', height: 400 },
      map: { title: 'Attention map', height: 560 },
      positions: { title: 'Moving positions', height: 480 },
    },
    embed: { height: 2500 }, // the lab's model: milliseconds
    // Its job (lens) runs on the language-model module: LM_JOBS, not JOBS.
    fields: { rope: 'scaling', layer: 'head', weights: 'model', checkpoint: 'model', config: 'model' },
  },
  {
    name: 'surgery',
    prefix: 'sg',
    title: 'Surgery',
    primary: '.control:has(#c-sg-sweep), .control:has(#c-sg-model)',
    group: 'models',
    // The text stays on the page; the model, the sweep, its single intervention and what the
    // figures show travel. A head or layer the model lacks is the core's refusal, not the link's.
    settings: {
      // The lab's shipped model by default (a sweep in seconds); 'loaded': the Models view's.
      model: oneOf(['lab-rope', 'loaded', 'tiny', 'tiny-llama'], 'lab-rope'),
      sweep: oneOf(['bands', 'heads', 'layers', 'base', 'single'], 'bands'),
      group: int(0, 0, 4096), // bands: pairs per group; 0: as many as make 16 groups (the core's)
      bases: token('', BASES_RE, 400), // base: '' the core's list (the model's × 0.01 … 10)
      // single: the intervention (state/surgery-settings.js reads them; '' / 0: none)
      zero: token('', PAIRS_RE, 360),
      nopel: intList([], 0, 255, 64),
      nopeh: token('', HEADS_RE, 600),
      ablate: token('', HEADS_RE, 600),
      rbase: num(0, 0, 1e12),
      lbase: num(0, 0, 1e12),
      window: int(256, 2, 4096), // tokens per pass
      len: int(4096, 2, 65536), // tokens of the text read at most (len / window windows)
      seed: int(0, 0, 2147483647), // the bootstrap interval's
      show: int(0, 0, 4096), // the bar the lower figures show, from 1; 0: the largest change
      head: token('0.0', /^(0|[1-9]\d?)\.(0|[1-9]\d?)$/, 5), // the maps' 'layer.head'
      smooth: int(8, 1, 256), // the loss-by-position plot's moving average (1: raw)
    },
    figures: {
      deltas: { title: 'Change in loss per intervention', height: 560 },
      positions: { title: 'Loss by position, before and after', height: 440 },
      before: { title: 'Attention map, unmodified', height: 520 },
      after: { title: 'Attention map, after the intervention', height: 520 },
    },
    embed: { height: 2300 }, // the lab's model: a sweep in seconds
    // Its job (surgery) runs on the language-model module: LM_JOBS, not JOBS.
    fields: {
      ropeZeroPairs: 'zero',
      nopeLayers: 'nopel',
      nopeHeads: 'nopeh',
      ablateHeads: 'ablate',
      ropeBase: 'rbase',
      ropeLocalBase: 'lbase',
      surgery: 'sweep',
      layer: 'head',
      weights: 'model',
      checkpoint: 'model',
    },
  },
  {
    name: 'rope-inspector',
    prefix: 'ri',
    title: 'RoPE inspector',
    primary: '.control:has(#c-ri-config), .local-input',
    group: 'models',
    // A bundled config travels in the link; a pasted one stays on the page.
    settings: { config: oneOf(ROPE_CONFIG_CHOICES, 'llama-3.1-8b') },
    figures: {
      wavelengths: { title: 'Wavelength per pair' },
      ratio: { title: 'Scaled / original frequency' },
      temperature: { title: 'NoPE layers’ query scale by position' },
      mrope: { title: 'M-RoPE position ids of a sample prompt' },
    },
    embed: null, // it runs on the language-model module, which an embed does not load
    // Its job (ropeConfig) runs on the language-model module: LM_JOBS, not JOBS.
  },
];

export const VIEW_NAMES = VIEWS.map((v) => v.name);

/** The view declared as `name` (undefined when there is none). */
export const viewNamed = (name) => VIEWS.find((v) => v.name === name);

/** The view whose settings carry `prefix` (undefined when there is none). */
export const viewOfPrefix = (prefix) => VIEWS.find((v) => v.prefix === prefix);

// A renamed view's former name and prefix (`was`) → today's, for links written before.
const FORMER_NAMES = Object.fromEntries(VIEWS.filter((v) => v.was).map((v) => [v.was.name, v.name]));
const FORMER_PREFIXES = Object.fromEntries(VIEWS.filter((v) => v.was).map((v) => [v.was.prefix, v.prefix]));

/** A link's setting key as today's schema names it: 'gpt.text' → 'lm.text'; others unchanged. */
export function currentKey(key) {
  const dot = key.indexOf('.');
  const prefix = dot > 0 ? key.slice(0, dot) : '';
  return Object.hasOwn(FORMER_PREFIXES, prefix) ? `${FORMER_PREFIXES[prefix]}${key.slice(dot)}` : key;
}

/** A view's own settings without their prefix: pick(state, 'enc') turns 'enc.L' into L. */
export function pick(state, prefix) {
  const out = {};
  for (const [key, value] of Object.entries(state)) {
    if (key.startsWith(`${prefix}.`)) out[key.slice(prefix.length + 1)] = value;
  }
  return out;
}

/**
 * The setting key (with prefix) an error is about: its `field` through the view's `fields`
 * table, or the field itself when it names one of the view's settings; null otherwise.
 * @param {ViewDecl} view
 * @param {string | undefined} field
 * @param {Record<string, any>} p the view's settings (without prefix), for fields that depend on them
 */
export function settingOfField(view, field, p) {
  if (typeof field !== 'string' || !view.settings) return null;
  const entry = Object.hasOwn(view.fields ?? {}, field) ? view.fields[field] : field;
  const short = typeof entry === 'function' ? entry(p) : entry;
  return Object.hasOwn(view.settings, short) ? `${view.prefix}.${short}` : null;
}

/** Every setting, keyed by its name in the URL hash ('enc.L', …; 'view' and 'theme' are the page's). */
export const SCHEMA = {
  view: oneOf(VIEW_NAMES, 'encodings', FORMER_NAMES), // the empty link opens 'start' (state/url.js)
  theme: oneOf(['auto', 'light', 'dark'], 'auto'),
  ...Object.fromEntries(
    VIEWS.flatMap((v) => Object.entries(v.settings ?? {}).map(([k, type]) => [`${v.prefix}.${k}`, type])),
  ),
};

/** A fresh copy of every default (lists copied so callers may not share them). */
export function defaults() {
  const out = {};
  for (const [key, type] of Object.entries(SCHEMA)) {
    out[key] = Array.isArray(type.def) ? [...type.def] : type.def;
  }
  return out;
}
