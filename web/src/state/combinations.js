// Settings that are each in range but refused together (an L × D table over the cell cap, D
// not split into H heads, a custom mask that does not decode), and single values the types
// cannot judge (a text with no word). One table: the views check it before computing, the
// jobs before allocating (in the worker: this file reads no registry), and a link that breaks
// a rule falls back (url.js's readLink). Where the core refuses a combination (T5's buckets,
// RoPE scaling's factors), the rule here says so first: a link must never decode to settings
// the view's job then refuses.
import { decodeMask } from './mask-bits.js';
import { COUPLED_METHODS, hasOption, isHeadBias, isPairMethod, needsEvenWidth } from './methods.js';

export const MAX_CELLS = 8192 * 1024; // keeps one recompute + redraw within a frame budget
export const MAX_PAIR_LENGTH = 2048; // L × L matrices of the bias methods
// The wasm core's cap on one tensor (tensor.hpp's checked_numel; lab.maxElements, checked by
// tests/web/url-properties.test.js): ALiBi's job asks the core for every head's L × L bias.
export const MAX_ELEMENTS = 2 ** 26;
export const MAX_TOKENS = 64; // words of the attention view's text

// The lab's model sizes' layers: lab/presets.js SIZES (not imported: the lab stays out of the
// page's chunk; tests/web/lab.test.js checks they agree).
export const LAB_LAYERS = { default: 2, small: 1, deep: 4 };

// What the core refuses of a lab view's attention options (lab/presets.js attentionOptions):
// more NoPE layers than the model has (layers(p)), and a temperature without NoPE layers.
function attentionRules(prefix, layers) {
  return [
    {
      key: `${prefix}.nopeEvery`,
      refused: (p) => p.nopeEvery > layers(p),
      message: (p) =>
        `NoPE every ${p.nopeEvery} layers leaves none out of the ${layers(p)}-layer model: ` +
        `use at most ${layers(p)}, or 0`,
    },
    {
      key: `${prefix}.attnFloor`,
      refused: (p) => p.attnFloor > 0 && !(p.nopeEvery > 0),
      message: () =>
        'the attention temperature is Llama 4’s on its NoPE layers: set NoPE every K too, or the floor to 0',
    },
  ];
}
const NTK_LIKE = ['ntk', 'dynamic']; // scale the base by factor^(R / (R − 2)), R the rotary width

// A decaying rotation's table (its queries) is largest at position 0: ζ₀^(−⌈L/2⌉/s) with
// ζ₀ = (0.4·D)/(1.4·D) = 2/7, the smallest ζᵢ, i.e. 3.5^(⌈L/2⌉/s). The core refuses it beyond
// float32 (ln FLT_MAX ≈ 88.72, rope.cpp); 88 keeps the rule on the safe side of rounding.
const DECAY_MAX_EXPONENT = 88;
const minScaleBase = (L) => Math.ceil((Math.ceil(L / 2) * Math.log(3.5)) / DECAY_MAX_EXPONENT);

/** The attention view's tokens: one per whitespace-separated word of its text. */
export const words = (text) => String(text).trim().split(/\s+/).filter(Boolean);

/** Why `count` words cannot be the attention view's tokens, or null when they can. */
export function wordCountProblem(count) {
  if (count === 0) return 'type at least one word';
  if (count > MAX_TOKENS) return `${count} words; the attention view takes at most ${MAX_TOKENS}`;
  return null;
}

// T5 buckets (cpp/src/positions/relative.cpp): a bidirectional table splits them into two halves, and
// each half keeps its first half exact, so the max distance must lie beyond those.
const t5MinBuckets = (p) => (p.bidir ? 4 : 2);
const t5MaxExact = (p) => Math.floor((p.bidir ? Math.floor(p.buckets / 2) : p.buckets) / 2);

const evenWidth = (key, needsPairs) => ({
  key,
  refused: (p) => needsPairs(p) && p.D % 2 !== 0,
  message: () => 'D must be even: sin/cos (or rotated) pairs',
});

// The longest L of a bias method's L × L matrix: a per-head bias's H × L × L stays within the core's cap.
const maxPairLength = (p) =>
  isHeadBias(p.method) ? Math.min(MAX_PAIR_LENGTH, Math.floor(Math.sqrt(MAX_ELEMENTS / p.heads))) : MAX_PAIR_LENGTH;

// Both axes are in range but their product is over the cap: the largest axis shrinks to fit
// (a width stays even, for the methods that pair dimensions).
function clampLargestAxis(p) {
  if (p.L >= p.D) return { L: Math.floor(MAX_CELLS / p.D) };
  const D = Math.floor(MAX_CELLS / p.L);
  return { D: D - (D % 2) };
}

// Each rule: the key it is about, when it refuses (p = the view's settings without prefix),
// the message shown beside that key, and optionally `fit`, a patch that makes it acceptable.
export const RULES = {
  enc: [
    {
      key: (p) => (p.L >= p.D ? 'enc.L' : 'enc.D'),
      refused: (p) => !isPairMethod(p.method) && p.L * p.D > MAX_CELLS,
      message: (p) => `L × D = ${p.L * p.D} cells; the playground draws at most ${MAX_CELLS} (8192 × 1024)`,
      fit: clampLargestAxis,
    },
    {
      key: 'enc.L',
      refused: (p) => isPairMethod(p.method) && p.L > maxPairLength(p),
      message: (p) =>
        maxPairLength(p) < MAX_PAIR_LENGTH
          ? `${p.method} is drawn from its bias of all ${p.heads} heads, H × L × L; L is limited to ${maxPairLength(p)} here`
          : `${p.method} is drawn as an L × L matrix; L is limited to ${MAX_PAIR_LENGTH} here`,
      fit: (p) => ({ L: maxPairLength(p) }),
    },
    evenWidth('enc.D', (p) => needsEvenWidth(p.method)),
    {
      key: 'enc.scalebase',
      refused: (p) => hasOption(p.method, 'scaleBase') && p.scalebase < minScaleBase(p.L),
      message: (p) =>
        `${p.method} scales position 0 by 3.5^(⌈L/2⌉/s) = 3.5^(${Math.ceil(p.L / 2)}/${p.scalebase}), beyond float32; ` +
        `with L = ${p.L} the scale base must be at least ${minScaleBase(p.L)}`,
      fit: (p) => ({ scalebase: minScaleBase(p.L) }),
    },
    {
      key: 'enc.head',
      refused: (p) => isHeadBias(p.method) && p.head >= p.heads,
      message: (p) => `head ${p.head} does not exist: there are ${p.heads} heads (0…${p.heads - 1})`,
    },
    {
      key: 'enc.buckets',
      refused: (p) => p.method === 't5' && p.buckets < t5MinBuckets(p),
      message: (p) => `bidirectional T5 buckets are split into two halves: at least ${t5MinBuckets(p)}`,
      fit: (p) => ({ buckets: t5MinBuckets(p) }),
    },
    {
      key: 'enc.maxdist',
      refused: (p) => p.method === 't5' && p.maxdist <= t5MaxExact(p),
      message: (p) =>
        `${p.buckets} ${p.bidir ? 'bidirectional ' : ''}T5 buckets give distances below ${t5MaxExact(p)} a bucket each; ` +
        `max distance must be above ${t5MaxExact(p)}`,
      fit: (p) => ({ maxdist: t5MaxExact(p) + 1 }),
    },
  ],
  sim: [evenWidth('sim.D', (p) => needsEvenWidth(p.method))],
  ext: [
    evenWidth('ext.D', () => true),
    {
      key: 'ext.L',
      refused: (p) => p.N > p.L,
      message: (p) => `the evaluation length L (${p.L}) must be at least the training length N (${p.N})`,
    },
    {
      key: 'ext.D',
      refused: (p) => NTK_LIKE.includes(p.scaling) && p.D <= 2,
      message: (p) => `${p.scaling} scaling raises the base by factor^(D / (D − 2)): D must be above 2`,
      fit: () => ({ D: 4 }),
    },
    {
      key: 'ext.lowff',
      refused: (p) => p.scaling === 'llama3' && p.lowff > p.highff,
      message: (p) => `llama3 scaling needs low_freq_factor (${p.lowff}) at most high_freq_factor (${p.highff})`,
    },
    {
      key: 'ext.bfast',
      refused: (p) => p.scaling === 'yarn' && p.bfast < p.bslow,
      message: (p) =>
        `yarn scaling needs beta_fast (${p.bfast}) at least beta_slow (${p.bslow}): the ramp would run backwards`,
    },
  ],
  off: [
    evenWidth('off.D', () => true),
    {
      key: 'off.k',
      refused: (p) => p.p + p.k < 0,
      message: (p) => `p + k = ${p.p + p.k} is before position 0; pick k ≥ −p`,
    },
  ],
  att: [
    {
      key: 'att.text',
      refused: (p) => wordCountProblem(words(p.text).length) !== null,
      message: (p) => wordCountProblem(words(p.text).length),
    },
    {
      key: 'att.custom',
      refused: (p) => decodeMask(p.custom, 1) === null,
      message: () => 'the custom mask in the link is malformed; click cells to draw a new one',
    },
    {
      key: 'att.H',
      refused: (p) => p.D % p.H !== 0,
      message: (p) => `D = ${p.D} does not split into ${p.H} heads; pick D divisible by H`,
    },
    evenWidth('att.D', (p) => p.pe === 'sinusoidal'),
    {
      key: 'att.rope',
      refused: (p) => p.rope !== 'none' && (p.D / p.H) % 2 !== 0,
      message: (p) => `${p.rope} rotates pairs: the head width D/H = ${p.D / p.H} must be even`,
    },
    {
      key: 'att.head',
      refused: (p) => p.head >= p.H,
      message: (p) => `head ${p.head} does not exist: there are ${p.H} heads (0…${p.H - 1})`,
    },
  ],
  tl: attentionRules('tl', () => LAB_LAYERS.default), // the text lab's model: the default size
  lg: [
    {
      // Coupling (lab/presets.js runPlan) trains only the plain runs of the methods that take it.
      key: 'lg.coupled',
      refused: (p) => p.coupled && p.task === 'addition' && !p.methods.some((m) => COUPLED_METHODS.includes(m)),
      message: () =>
        `position coupling trains only ${COUPLED_METHODS.join(', ')} (on their own positions, not randomised): ` +
        'pick one of them, or untick coupling',
    },
    ...attentionRules('lg', (p) => LAB_LAYERS[p.size]),
  ],
};

/** The first rule of the view with `prefix` that `p` (its settings, without prefix) breaks. */
export const firstBroken = (prefix, p) => (RULES[prefix] ?? []).find((rule) => rule.refused(p));

/**
 * The first rule `p` (one view's settings, without prefix) breaks, or null.
 * @returns {{ key: string, message: string } | null}
 */
export function refusal(prefix, p) {
  const rule = firstBroken(prefix, p);
  if (!rule) return null;
  return { key: typeof rule.key === 'function' ? rule.key(p) : rule.key, message: rule.message(p) };
}

/** A RangeError about `field` (a setting without its prefix): the page shows it beside that control. */
export const fieldError = (field, message) => Object.assign(new RangeError(message), { field });

/** Throws the refusal as a fieldError (the jobs' guard before they allocate). */
export function assertAllowed(prefix, p) {
  const r = refusal(prefix, p);
  if (r) throw fieldError(r.key.slice(prefix.length + 1), r.message);
}
