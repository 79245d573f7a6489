// Tokens for the attention view: one per whitespace-separated word (enough to see position
// at work), each with a seeded random embedding so equal words get equal vectors.
// The words and their count's limits are the combination rules' (state/combinations.js), so
// a link with a text the view cannot draw falls back before it reaches here.
import { fieldError, wordCountProblem, words } from '../../state/combinations.js';

export const PAD_RE = /^(\[pad\]|<pad>)$/i;

export function tokenize(text) {
  const tokens = words(text);
  const problem = wordCountProblem(tokens.length);
  if (problem) throw fieldError('text', problem);
  return tokens;
}

/** FNV-1a of the UTF-16 code units: a stable 31-bit seed per word. */
export function wordSeed(word, seed = 0) {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & 0x7fffffff;
}

/** (L, D) token embeddings: one seeded N(0, 1) vector per distinct word, from the core's learned table. */
export function tokenEmbeddings(lab, tokens, D, seed) {
  const data = new Float32Array(tokens.length * D);
  const cache = new Map();
  tokens.forEach((word, i) => {
    if (!cache.has(word)) cache.set(word, lab.learned({ length: 1, dim: D, seed: wordSeed(word, seed), std: 1 }).data);
    data.set(cache.get(word), i * D);
  });
  return { data, shape: [tokens.length, D] };
}
