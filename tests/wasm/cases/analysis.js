// Native-vs-wasm cases for the norms and the analysis tools: LayerNorm/RMSNorm with and
// without γ/β, cosine/dot similarity (and its mean by offset), offset matrices, wavelengths.
import { label } from './flags.js';

const norm = (kind, shape, o = {}) => {
  const D = shape[shape.length - 1];
  const method = kind === 'layernorm' ? 'layerNorm' : 'rmsNorm';
  return {
    name: `norm ${kind} x=(${shape}) ${[o.gamma && 'gamma', o.beta && 'beta', o.eps && `eps=${o.eps}`].filter(Boolean).join(' ')}`,
    inputs: { x: shape, ...(o.gamma && { gamma: [D] }), ...(o.beta && { beta: [D] }) },
    cli: (f) => [
      'norm',
      ...['--kind', kind, '--in', f.x],
      ...(o.eps !== undefined ? ['--eps', o.eps] : []),
      ...(o.gamma ? ['--gamma', f.gamma] : []),
      ...(o.beta ? ['--beta', f.beta] : []),
    ],
    run: (lab, t) => ({
      out: lab[method](t.x, {
        ...(o.eps !== undefined && { eps: o.eps }),
        ...(o.gamma && { gamma: t.gamma }),
        ...(o.beta && { beta: t.beta }),
      }),
    }),
  };
};

// Random rows with row `zero` set to 0: cosine similarity of a zero row must be 0, not NaN.
const rowsWithZero = (L, D, zero) => (seed) => {
  const data = new Float32Array(L * D);
  for (let i = 0; i < data.length; i++) data[i] = Math.sin(seed * 1e-3 + i * 1.3);
  data.fill(0, zero * D, (zero + 1) * D);
  return { data, shape: [L, D] };
};

const similarity = (name, x, metric) => ({
  name: `similarity ${name} metric=${metric}`,
  inputs: { x },
  cli: (f) => ['similarity', '--in', f.x, '--metric', metric],
  run: (lab, t) => ({ out: lab.similarity(t.x, { metric }) }),
});

// similarityByOffset has no CLI command: its oracle is the mean of the CLI's S[i, i+k].
const meanByOffset = ({ out }) => {
  const L = out.shape[0];
  const data = new Float64Array(L);
  for (let k = 0; k < L; k++) {
    let sum = 0;
    for (let i = 0; i + k < L; i++) sum += (out.data[i * L + i + k] + out.data[(i + k) * L + i]) / 2;
    data[k] = sum / (L - k);
  }
  return { out: { data, shape: [L] } };
};

const similarityByOffset = (name, x, metric) => ({
  ...similarity(name, x, metric),
  name: `similarity-by-offset (mean of CLI similarity) ${name} metric=${metric}`,
  derive: meanByOffset,
  run: (lab, t) => ({ out: lab.similarityByOffset(t.x, { metric }) }),
});

const offsetMatrix = (o) => ({
  name: `offset-matrix ${label(o)}`,
  cli: () => ['offset-matrix', '--dim', o.dim, '--k', o.k, ...(o.base !== undefined ? ['--base', o.base] : [])],
  run: (lab) => ({ out: lab.offsetMatrix(o) }),
});

const wavelengths = (o) => ({
  name: `wavelengths ${label(o)}`,
  cli: () => ['wavelengths', '--dim', o.dim, ...(o.base !== undefined ? ['--base', o.base] : [])],
  run: (lab) => ({ out: lab.wavelengths(o) }),
});

export const ANALYSIS_CASES = [
  norm('layernorm', [6, 16]),
  norm('layernorm', [6, 16], { gamma: true, beta: true }),
  norm('layernorm', [2, 3, 5], { gamma: true, eps: 1e-3 }),
  norm('layernorm', [4, 64], { beta: true }),
  norm('rmsnorm', [6, 16]),
  norm('rmsnorm', [6, 16], { gamma: true }),
  norm('rmsnorm', [2, 3, 7], { gamma: true, eps: 1e-2 }),
  similarity('random (12,8)', [12, 8], 'cosine'),
  similarity('random (12,8)', [12, 8], 'dot'),
  similarity('zero row (9,6)', rowsWithZero(9, 6, 4), 'cosine'),
  similarity('zero row (9,6)', rowsWithZero(9, 6, 4), 'dot'),
  similarity('random (40,33)', [40, 33], 'cosine'),
  similarityByOffset('random (12,8)', [12, 8], 'cosine'),
  similarityByOffset('random (20,16)', [20, 16], 'dot'),
  offsetMatrix({ dim: 16, k: 5 }),
  offsetMatrix({ dim: 16, k: -3 }),
  offsetMatrix({ dim: 8, k: 0 }),
  offsetMatrix({ dim: 12, k: 7, base: 100 }),
  offsetMatrix({ dim: 64, k: 1000 }),
  wavelengths({ dim: 64 }),
  wavelengths({ dim: 16, base: 500 }),
  wavelengths({ dim: 2 }),
];
