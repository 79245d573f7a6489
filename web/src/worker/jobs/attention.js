// View 5: multi-head self-attention over typed words, stage by stage for one head: raw
// scores → + position bias → mask → softmax weights → output. Projections, RoPE, biases and
// the softmax are the core's (multiHeadAttention, attention); only QKᵀ for the "raw scores"
// panel and the entropy are computed here, from the core's own q and k.
import { assertAllowed } from '../../state/combinations.js';
import { decodeMask } from '../../state/mask-bits.js';
import { headEntropy, headScores } from './linalg.js';
import { PAD_RE, tokenEmbeddings, tokenize } from './tokens.js';

/** Hidden cells (L·L) of the built-in masks, before padding and custom cells. */
export function baseMask(kind, L, W) {
  const hidden = new Uint8Array(L * L);
  for (let i = 0; i < L; i++) {
    for (let j = 0; j < L; j++) {
      const future = j > i;
      if ((kind === 'causal' && future) || (kind === 'window' && (future || i - j >= W))) hidden[i * L + j] = 1;
    }
  }
  return hidden;
}

const maskString = (kind, W) => (kind === 'causal' ? 'causal' : kind === 'window' ? `window:${W}` : 'none');

function inputs(lab, p, tokens) {
  const L = tokens.length;
  let pe = null;
  if (p.pe === 'sinusoidal') pe = lab.sinusoidal({ length: L, dim: p.D }).data;
  else if (p.pe === 'learned') pe = lab.learned({ length: L, dim: p.D, seed: p.seed + 1, std: 1 }).data;
  const x = p.input === 'tokens' ? tokenEmbeddings(lab, tokens, p.D, p.seed).data : new Float32Array(L * p.D);
  if (pe) for (let i = 0; i < x.length; i++) x[i] += pe[i];
  return { data: x, shape: [L, p.D] };
}

export function attention(lab, p) {
  const tokens = tokenize(p.text);
  const L = tokens.length;
  const { H, D } = p;
  assertAllowed('att', p); // heads that split D, even head widths for RoPE, a mask that decodes
  const d = D / H;
  const custom = p.mask === 'custom' ? decodeMask(p.custom, L) : new Uint8Array(L * L);
  const padding = new Uint8Array(L);
  if (p.pad) tokens.forEach((t, j) => (padding[j] = PAD_RE.test(t) ? 1 : 0));
  const base = p.mask === 'custom' ? custom : baseMask(p.mask, L, p.window);
  const mask = maskString(p.mask, p.window);

  const mh = lab.multiHeadAttention(inputs(lab, p, tokens), {
    heads: H,
    seed: p.seed,
    mask,
    keyPadding: padding,
    rope: p.rope ? { style: 'neox' } : false,
    bias: p.bias,
    t5: { bidirectional: p.mask === 'none' || p.mask === 'custom' },
  });
  const hasBias = mh.bias && mh.bias.data.length === H * L * L;
  const positionBias = hasBias ? mh.bias.data : new Float32Array(H * L * L);

  // The custom cells reach the core as −∞ in the bias, the way a user-supplied mask would.
  let bias;
  if (hasBias || custom.some((v) => v)) {
    bias = Float32Array.from(positionBias);
    for (let h = 0; h < H; h++) for (let c = 0; c < L * L; c++) if (custom[c]) bias[h * L * L + c] = -Infinity;
  }
  const att = lab.attention(mh.q, mh.k, mh.v, {
    mask,
    keyPadding: padding,
    bias: bias && { data: bias, shape: [H, L, L] },
    returnWeights: true,
  });

  const hidden = Uint8Array.from(base, (v, c) => v || padding[c % L]);
  const scores = headScores(mh.q.data, mh.k.data, H, L, d, 1 / Math.sqrt(d));
  const h0 = p.head * L * L;
  const pick = (t, n = L * L, off = h0) => t.slice(off, off + n);
  const maskMatrix = Float32Array.from(hidden, (v) => (v ? -Infinity : 0));
  const logits = pick(scores).map((s, c) => (hidden[c] ? -Infinity : s + positionBias[h0 + c]));

  const heatmaps = {
    scores: { data: pick(scores), rows: L, cols: L, cmap: 'RdBu' },
    bias: { data: pick(positionBias), rows: L, cols: L, cmap: 'RdBu' },
    mask: { data: maskMatrix, rows: L, cols: L, cmap: 'Blues', range: [0, 0] },
    logits: { data: logits, rows: L, cols: L, cmap: 'RdBu' },
    weights: { data: pick(att.weights.data), rows: L, cols: L, cmap: p.cmap, range: [0, 1] },
    output: { data: pick(att.output.data, L * d, p.head * L * d), rows: L, cols: d, cmap: 'RdBu' },
  };
  for (let h = 0; h < H; h++) {
    heatmaps[`head${h}`] = {
      data: pick(att.weights.data, L * L, h * L * L),
      rows: L,
      cols: L,
      cmap: p.cmap,
      range: [0, 1],
    };
  }
  return {
    tokens,
    heatmaps,
    baseHidden: base,
    entropy: headEntropy(att.weights.data, H, L),
    headWidth: d,
  };
}
