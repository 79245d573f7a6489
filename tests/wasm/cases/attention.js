// Native-vs-wasm cases for attention: every mask form, Lq ≠ Lk, key padding, shared and
// per-head bias (with −inf), explicit scale, dv ≠ d, odd widths, fully masked rows, and one
// medium (L = 256, d = 64) problem that runs the blocked SIMD loops over many blocks.

// Input specs: a shape (standard normal), { shape, std }, or a function of a seed.
const padding = (lk, hidden) => () => {
  const data = new Uint8Array(lk);
  for (const j of hidden) data[j] = 1;
  return { data, shape: [lk] };
};

// A (…, Lq, Lk) bias of small normal values with −inf at the given [i, j] (every head).
const biasWithHoles = (shape, holes) => (seed) => {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = Math.sin(seed + i * 0.7) * 0.5;
  const [lq, lk] = shape.slice(-2);
  for (let h = 0; h < n / (lq * lk); h++) {
    for (const [i, j] of holes) data[h * lq * lk + i * lk + j] = -Infinity;
  }
  return { data, shape };
};

const maskText = (mask) => (typeof mask === 'object' ? `window:${mask.window}` : mask);

// How the JS call passes key padding: the npy's Uint8Array, booleans or numbers.
const paddingAs = {
  uint8: (t) => t.data,
  boolean: (t) => Array.from(t.data, (x) => x !== 0),
  number: (t) => Array.from(t.data),
};

// o: { mask, scale } as the JS API takes them; extra: inputs beyond q/k/v and how to pass them.
const attention = (name, shapes, o = {}, extra = {}) => {
  const { keyPadding, bias, weights = true, padAs = 'uint8', largeScores = false } = extra;
  return {
    name: `attention ${name}`,
    inputs: { ...shapes, ...(keyPadding && { keyPadding }), ...(bias && { bias }) },
    outputs: weights ? ['out', 'weights'] : ['out'],
    cli: (f) => [
      'attention',
      ...['--q', f.q, '--k', f.k, '--v', f.v],
      ...(o.mask !== undefined ? ['--mask', maskText(o.mask)] : []),
      ...(o.offset !== undefined ? ['--offset', o.offset] : []),
      ...(o.scale !== undefined ? ['--scale', o.scale] : []),
      ...(keyPadding ? ['--key-padding', f.keyPadding] : []),
      ...(bias ? ['--bias', f.bias] : []),
      ...(weights ? ['--weights', f.weights] : []),
    ],
    ...(largeScores && { tolerance: (t, key) => scoreTolerance(t, key, o.scale) }),
    run: (lab, t) => {
      const r = lab.attention(t.q, t.k, t.v, {
        ...o,
        ...(keyPadding && { keyPadding: paddingAs[padAs](t.keyPadding) }),
        ...(bias && { bias: t.bias }),
        returnWeights: weights,
      });
      if (!weights && r.weights !== undefined) throw new Error('returnWeights: false still returned weights');
      return weights ? { out: r.output, weights: r.weights } : { out: r.output };
    },
  };
};

// The float32 fast path rounds each score s = scale·Σ_c q_c·k_c with an error of about
// 2^-24·scale·√(Σ_c (q_c·k_c)²) (rounding errors of the d products add up as a random walk),
// and softmax turns a score error δ into a relative weight error of up to 2δ. For scores of
// order 1 (every case but the one marked largeScores) that is far below 1e-6; for
// trained-model-sized scores (|s| up to ~20) it is not, so that case allows, beyond
// 1e-6 + 1e-6·|native|, 2δ·|w| per weight and 2δ·max|v| per output, with δ taken 4× the
// random-walk size over the worst (query, key) pair (see cpp/include/poslab/fast/fast.hpp).
function scoreTolerance(t, key, scale) {
  const d = t.q.shape[t.q.shape.length - 1];
  const heads = t.q.shape.length === 3 ? t.q.shape[0] : 1;
  const lq = t.q.data.length / heads / d;
  const lk = t.k.data.length / heads / d;
  let worst = 0;
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < lq; i++) {
      for (let j = 0; j < lk; j++) {
        let s = 0;
        for (let c = 0; c < d; c++) {
          const p = t.q.data[(h * lq + i) * d + c] * t.k.data[(h * lk + j) * d + c];
          s += p * p;
        }
        worst = Math.max(worst, s);
      }
    }
  }
  const delta = 4 * 2 ** -24 * Math.abs(scale ?? 1 / Math.sqrt(d)) * Math.sqrt(worst);
  if (key === 'weights') return { rtol: 1e-6 + 2 * delta };
  let maxV = 0;
  for (const x of t.v.data) maxV = Math.max(maxV, Math.abs(x));
  return { atol: 1e-6 + 2 * delta * maxV };
}

const qkv = (H, lq, lk, d, dv = d) => {
  const lead = H ? [H] : [];
  return { q: [...lead, lq, d], k: [...lead, lk, d], v: [...lead, lk, dv] };
};

export const ATTENTION_CASES = [
  attention('2-D no mask', qkv(0, 16, 16, 8)),
  attention('2-D mask none (explicit)', qkv(0, 16, 16, 8), { mask: 'none' }),
  attention('2-D causal', qkv(0, 16, 16, 8), { mask: 'causal' }),
  attention('3-D causal H=4', qkv(4, 12, 12, 16), { mask: 'causal' }),
  attention('3-D window:3', qkv(3, 12, 12, 16), { mask: 'window:3' }),
  attention('2-D window object {window: 5}', qkv(0, 20, 20, 8), { mask: { window: 5 } }),
  attention('Lq<Lk causal', qkv(0, 5, 9, 8), { mask: 'causal' }),
  attention('Lq>Lk causal', qkv(0, 9, 5, 8), { mask: 'causal' }),
  attention('Lq<Lk window:4 3-D', qkv(2, 7, 13, 8), { mask: 'window:4' }),
  attention('Lq=1 decode step', qkv(4, 1, 33, 64)),
  attention('Lq=1 decode step, causal, offset Lk − 1', qkv(4, 1, 33, 64), { mask: 'causal', offset: 32 }),
  attention('Lq<Lk causal offset Lk − Lq', qkv(2, 7, 13, 8), { mask: 'causal', offset: 6 }),
  attention('Lq>Lk window:3 offset −2 (rows that see nothing)', qkv(0, 9, 5, 8), { mask: 'window:3', offset: -2 }),
  attention(
    'window:4 offset 3 with key padding',
    qkv(2, 12, 16, 8),
    { mask: { window: 4 }, offset: 3 },
    { keyPadding: padding(16, [4, 5, 15]) },
  ),
  attention('key padding uint8', qkv(2, 10, 10, 8), {}, { keyPadding: padding(10, [2, 7]) }),
  attention(
    'key padding boolean[] causal',
    qkv(2, 10, 10, 8),
    { mask: 'causal' },
    {
      keyPadding: padding(10, [0, 5, 9]),
      padAs: 'boolean',
    },
  ),
  attention('key padding number[]', qkv(0, 6, 8, 4), {}, { keyPadding: padding(8, [1]), padAs: 'number' }),
  attention('per-head bias (H,Lq,Lk)', qkv(3, 6, 10, 8), {}, { bias: [3, 6, 10] }),
  attention('shared bias (Lq,Lk)', qkv(3, 6, 10, 8), { mask: 'causal' }, { bias: [6, 10] }),
  attention(
    'bias with -inf',
    qkv(0, 6, 6, 8),
    {},
    {
      bias: biasWithHoles(
        [6, 6],
        [
          [0, 1],
          [3, 3],
          [5, 0],
        ],
      ),
    },
  ),
  attention('scale 0.3', qkv(2, 8, 8, 8), { scale: 0.3 }),
  attention('scale 2 causal', qkv(0, 8, 8, 4), { mask: 'causal', scale: 2 }),
  attention('dv != d', qkv(2, 6, 6, 8, 12)),
  attention('odd widths d=5 dv=3', qkv(3, 7, 11, 5, 3), { mask: 'causal' }),
  // Scores of a trained model's size (|q·k|/√d up to ~20): the score-dependent bound above.
  attention(
    'large scores q,k std 2 d=64',
    {
      q: { shape: [2, 64, 64], std: 2 },
      k: { shape: [2, 64, 64], std: 2 },
      v: [2, 64, 64],
    },
    { mask: 'causal' },
    { largeScores: true },
  ),
  // Fully masked rows: causal leaves query 0 only key 0, which is padding; a −inf bias row.
  attention(
    'fully masked row (causal + padded key 0)',
    qkv(2, 5, 5, 8),
    { mask: 'causal' },
    {
      keyPadding: padding(5, [0]),
    },
  ),
  attention(
    'fully masked row (-inf bias row)',
    qkv(0, 4, 6, 8),
    {},
    {
      bias: biasWithHoles(
        [4, 6],
        [0, 1, 2, 3, 4, 5].map((j) => [2, j]),
      ),
    },
  ),
  attention('every key padded', qkv(2, 4, 4, 8), {}, { keyPadding: padding(4, [0, 1, 2, 3]) }),
  attention('no weights returned', qkv(2, 12, 12, 16), { mask: 'causal' }, { weights: false }),
  attention('medium L=256 d=64 causal', qkv(2, 256, 256, 64), { mask: 'causal' }),
];
