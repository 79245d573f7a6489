// The Attention view's job: multi-head self-attention over typed words, stage by stage for one
// head: raw scores → + position bias → mask → softmax weights → output. One call of the core
// (multiHeadAttention) gives the projections, the rotation, the bias, the scores the softmax took
// and the weights; the mask drawn is the one the core applied (attentionMask), with the drawn cells
// on top. Only the head's weights · V and the entropy are computed here.
import { assertAllowed } from '../../state/combinations.js';
import { decodeMask } from '../../state/mask-bits.js';
import { headEntropy } from './linalg.js';
import { PAD_RE, tokenEmbeddings, tokenize } from './tokens.js';

// The core's mask option for a built-in mask; drawn cells go in as customMask over 'none'.
const maskOption = (kind, W) => (kind === 'causal' ? 'causal' : kind === 'window' ? { window: W } : 'none');

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
  const custom = p.mask === 'custom' ? decodeMask(p.custom, L) : null;
  const keyPadding = new Uint8Array(L);
  if (p.pad) tokens.forEach((t, j) => (keyPadding[j] = PAD_RE.test(t) ? 1 : 0));
  const mask = maskOption(p.mask, p.window);

  const mh = lab.multiHeadAttention(inputs(lab, p, tokens), {
    heads: H,
    seed: p.seed,
    mask,
    keyPadding,
    ...(custom && { customMask: custom }),
    // The rotation of q and k: a rotation method of the core's table, at its defaults.
    rope: p.rope === 'none' ? false : { method: p.rope },
    bias: p.bias,
    t5: { bidirectional: p.mask === 'none' || p.mask === 'custom' },
  });
  const positionBias = mh.bias?.data ?? new Float32Array(H * L * L);
  // The cells hidden from every head: the core's rule for the mask and the padding, plus the
  // drawn ones (what customMask hid); a click edits the mask without the padding.
  const applied = lab.attentionMask({ queries: L, keys: L, mask, keyPadding }).data;
  const hidden = custom ? applied.map((v, c) => v | custom[c]) : applied;
  const baseHidden = custom ?? lab.attentionMask({ queries: L, keys: L, mask }).data;

  const h0 = p.head * L * L;
  const pick = (t, n = L * L, off = h0) => t.slice(off, off + n);
  const logits = pick(mh.scores.data); // q·kᵀ/√d + bias, −∞ where hidden: what the softmax took
  const raw = logits.map((s, c) => s - positionBias[h0 + c]); // hidden cells stay −∞
  const heatmaps = {
    scores: { data: raw, rows: L, cols: L, cmap: 'RdBu' },
    bias: { data: pick(positionBias), rows: L, cols: L, cmap: 'RdBu' },
    mask: {
      data: Float32Array.from(hidden, (v) => (v ? -Infinity : 0)),
      rows: L,
      cols: L,
      cmap: 'Blues',
      range: [0, 0],
    },
    logits: { data: logits, rows: L, cols: L, cmap: 'RdBu' },
    weights: { data: pick(mh.weights.data), rows: L, cols: L, cmap: p.cmap, range: [0, 1] },
    output: { data: pick(mh.heads.data, L * d, p.head * L * d), rows: L, cols: d, cmap: 'RdBu' },
  };
  for (let h = 0; h < H; h++) {
    heatmaps[`head${h}`] = {
      data: pick(mh.weights.data, L * L, h * L * L),
      rows: L,
      cols: L,
      cmap: p.cmap,
      range: [0, 1],
    };
  }
  return {
    tokens,
    heatmaps,
    baseHidden,
    entropy: headEntropy(mh.weights.data, H, L),
    headWidth: d,
  };
}
