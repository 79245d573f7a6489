// Settings that are each in range but refused together (an L × D table over the cell cap, D
// not split into H heads, a custom mask that does not decode). One table: the views check it
// before computing, the jobs before allocating (in the worker: this file reads no registry),
// and a link that breaks a rule falls back (url.js's readLink).
import { decodeMask } from './mask-bits.js';

export const MAX_CELLS = 8192 * 1024; // keeps one recompute + redraw within a frame budget
export const MAX_PAIR_LENGTH = 2048; // L × L matrices of the bias methods

const PAIR_METHODS = ['alibi', 't5', 'shaw'];
const UNPAIRED = ['learned', 'none']; // tables without sin/cos (or rotated) pairs

const evenWidth = (key, needsPairs) => ({
  key,
  refused: (p) => needsPairs(p) && p.D % 2 !== 0,
  message: () => 'D must be even: sin/cos (or rotated) pairs',
});

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
      refused: (p) => !PAIR_METHODS.includes(p.method) && p.L * p.D > MAX_CELLS,
      message: (p) => `L × D = ${p.L * p.D} cells; the playground draws at most ${MAX_CELLS} (8192 × 1024)`,
      fit: clampLargestAxis,
    },
    {
      key: 'enc.L',
      refused: (p) => PAIR_METHODS.includes(p.method) && p.L > MAX_PAIR_LENGTH,
      message: (p) => `${p.method} is drawn as an L × L matrix; L is limited to ${MAX_PAIR_LENGTH} here`,
      fit: () => ({ L: MAX_PAIR_LENGTH }),
    },
    evenWidth('enc.D', (p) => !PAIR_METHODS.includes(p.method) && !UNPAIRED.includes(p.method)),
    {
      key: 'enc.head',
      refused: (p) => p.method === 'alibi' && p.head >= p.heads,
      message: (p) => `head ${p.head} does not exist: there are ${p.heads} heads (0…${p.heads - 1})`,
    },
  ],
  sim: [evenWidth('sim.D', (p) => !UNPAIRED.includes(p.method))],
  ext: [
    evenWidth('ext.D', () => true),
    {
      key: 'ext.L',
      refused: (p) => p.N > p.L,
      message: (p) => `the evaluation length L (${p.L}) must be at least the training length N (${p.N})`,
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
      key: 'att.custom',
      refused: (p) => decodeMask(p.custom, 1) === null,
      message: () => 'the custom mask in the link is malformed; click cells to draw a new one',
    },
    {
      key: 'att.H',
      refused: (p) => p.D % p.H !== 0,
      message: (p) => `D = ${p.D} does not split into ${p.H} heads; pick D divisible by H`,
    },
    {
      key: 'att.rope',
      refused: (p) => p.rope && (p.D / p.H) % 2 !== 0,
      message: (p) => `RoPE rotates pairs: the head width D/H = ${p.D / p.H} must be even`,
    },
    {
      key: 'att.head',
      refused: (p) => p.head >= p.H,
      message: (p) => `head ${p.head} does not exist: there are ${p.H} heads (0…${p.H - 1})`,
    },
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
