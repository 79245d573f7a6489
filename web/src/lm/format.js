// Text for the GPT-2 view: tokens with their whitespace made visible, the top-k table rows,
// byte sizes and parameter counts. Pure functions, shown through textContent only.

/** A token's text with invisible characters made visible: " the" → "␣the", "\n" → "↵". */
export function visibleToken(piece) {
  if (piece === null || piece === undefined) return '∅';
  if (piece === '') return '∅';
  return piece.replace(/ /g, '␣').replace(/\n/g, '↵').replace(/\t/g, '⇥').replace(/\r/g, '␍');
}

/**
 * Axis labels that say where each token sits, "12 e" or "3 ␣the": on a thinned axis of single
 * bytes the labels shown then read as positions in the text, not as a scatter of letters.
 */
export const positionedTokens = (pieces) => pieces.map((t, i) => `${i} ${t}`);

/** "12.3 %" with enough digits that small probabilities do not all read 0. */
export function formatProbability(p) {
  const pct = p * 100;
  if (!Number.isFinite(pct)) return String(pct);
  if (pct >= 10) return `${pct.toFixed(1)} %`;
  if (pct >= 0.01) return `${pct.toPrecision(3)} %`;
  return `${pct.toExponential(2)} %`;
}

/**
 * Rows of the next-token table.
 * @param {ArrayLike<number>} ids most likely first
 * @param {ArrayLike<number>} probs their probabilities
 * @param {(id: number) => string|null} piece the tokenizer's text of one token
 */
export function topRows(ids, probs, piece) {
  return Array.from(ids, (id, i) => ({
    rank: i + 1,
    id,
    text: visibleToken(piece(id)),
    probability: probs[i],
    percent: formatProbability(probs[i]),
  }));
}

/** 1 234 567 → "1,234,567". */
export const formatCount = (n) => Number(n).toLocaleString('en-US');

/** Bytes as "498.0 MB" (decimal units, as file managers and the contract's numbers use). */
export function formatBytes(n) {
  if (n < 1e3) return `${n} B`;
  const units = ['kB', 'MB', 'GB'];
  let v = n / 1e3;
  let u = 0;
  while (v >= 1e3 && u < units.length - 1) {
    v /= 1e3;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

/** "124M" style short parameter count. */
export function shortCount(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e8 ? 0 : 1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}
