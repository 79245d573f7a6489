// Native-vs-wasm cases for RoPE: rotation (2-D and 3-D inputs, both pairings, partial
// rotation, every long-context scaling, offsets), its effective frequencies with the
// attention factor, its decay curve, and the wavelengths derived from the frequencies; and
// the table's other rotation, xPos (a decay: queries and keys, offsets, bases and scale bases),
// against `poslab rope --method xpos`.
import { label, ROPE_FLAGS, toFlags } from './flags.js';

const ROTATE_FLAGS = { ...ROPE_FLAGS, method: '--method', scaleBase: '--scale-base', key: '--key', offset: '--offset' };

const rope = (shape, o) => ({
  name: `rope x=(${shape}) ${label(o)}`,
  inputs: { x: shape },
  cli: (f) => ['rope', '--in', f.x, ...toFlags(o, ROTATE_FLAGS)],
  run: (lab, { x }) => ({ out: lab.rope(x, o) }),
});

const xpos = (shape, o) => rope(shape, { method: 'xpos', ...o });

// The CLI prints `attention_factor <value>` beside the frequencies.
const attentionFactor = (stdout) => {
  const m = /attention_factor\s+(\S+)/.exec(stdout);
  if (!m) throw new Error(`rope-freqs printed no attention factor: ${stdout}`);
  return { attentionFactor: Number(m[1]) };
};

const freqFlags = { ...ROPE_FLAGS, headDim: '--dim', totalLength: '--total-len' };

const ropeFreqs = (o) => ({
  name: `rope-freqs ${label(o)}`,
  cli: () => ['rope-freqs', ...toFlags(o, freqFlags)],
  stdout: attentionFactor,
  run: (lab) => {
    const f = lab.ropeFrequencies(o);
    if (f.rotaryDim !== 2 * f.invFreq.data.length) {
      throw new Error(`rotaryDim ${f.rotaryDim} != 2 × ${f.invFreq.data.length} frequencies`);
    }
    return { out: f.invFreq, attentionFactor: f.attentionFactor };
  },
});

const ropeDecay = (o) => ({
  name: `rope-decay ${label(o)}`,
  cli: () => ['rope-decay', ...toFlags(o, { ...ROPE_FLAGS, headDim: '--dim', maxDistance: '--max-distance' })],
  run: (lab) => ({ out: lab.ropeDecay(o) }),
});

// ropeWavelengths has no CLI command: its oracle is 2π/θ_i of the CLI's frequencies
// (static configurations only, where the total length does not matter).
const ropeWavelengths = (o) => ({
  name: `rope-wavelengths (2pi/rope-freqs) ${label(o)}`,
  cli: () => ['rope-freqs', ...toFlags(o, freqFlags)],
  derive: ({ out }) => ({ out: { data: out.data.map((t) => (2 * Math.PI) / t), shape: out.shape } }),
  run: (lab) => ({ out: lab.ropeWavelengths(o) }),
});

const SCALINGS = [
  { scaling: 'none' },
  { scaling: 'linear', factor: 4 },
  { scaling: 'ntk', factor: 8 },
  { scaling: 'dynamic', factor: 4, originalLength: 16 },
  { scaling: 'yarn', factor: 4, originalLength: 4096 },
  { scaling: 'yarn', factor: 8, originalLength: 64, betaFast: 16, betaSlow: 2 },
  { scaling: 'llama3', factor: 8, originalLength: 8192 },
  { scaling: 'llama3', factor: 4, originalLength: 64, lowFreqFactor: 2, highFreqFactor: 8 },
];

export const ROPE_CASES = [
  rope([17, 32], {}),
  rope([17, 32], { style: 'neox' }),
  rope([17, 32], { style: 'gptj' }),
  rope([4, 9, 16], { style: 'neox' }),
  rope([4, 9, 16], { style: 'gptj' }),
  rope([3, 5, 24], { style: 'gptj', offset: 7 }),
  rope([12, 32], { style: 'neox', rotaryFraction: 0.5 }),
  rope([12, 32], { style: 'gptj', rotaryFraction: 0.5 }),
  rope([2, 6, 64], { style: 'neox', rotaryFraction: 0.25, scaling: 'yarn', factor: 4, originalLength: 32 }),
  rope([16, 64], { style: 'neox', offset: 4096 }),
  rope([16, 64], { style: 'gptj', offset: 65000 }),
  rope([10, 16], { base: 500000 }),
  // Widths off the SIMD lane count, a single row, the narrowest rotation.
  rope([7, 6], { style: 'neox' }),
  rope([7, 10], { style: 'gptj' }),
  rope([5, 2], { style: 'neox' }),
  rope([1, 8], { style: 'gptj', offset: 3 }),
  ...SCALINGS.flatMap((s) => [rope([24, 32], { style: 'neox', ...s }), rope([2, 24, 16], { style: 'gptj', ...s })]),
  // dynamic NTK only changes θ once offset + L exceeds the original length (16 here).
  rope([8, 32], { scaling: 'dynamic', factor: 4, originalLength: 16 }),
  rope([40, 32], { scaling: 'dynamic', factor: 4, originalLength: 16 }),
  rope([8, 32], { scaling: 'dynamic', factor: 4, originalLength: 16, offset: 30 }),
  rope([16, 32], { scaling: 'yarn', factor: 4, originalLength: 4096, offset: 8000 }),
  rope([16, 32], { scaling: 'llama3', factor: 8, originalLength: 8192, offset: 10000 }),
  ...SCALINGS.map((s) => ropeFreqs({ headDim: 64, ...s })),
  ropeFreqs({ headDim: 128, base: 500000, scaling: 'llama3', factor: 8, originalLength: 8192 }),
  ropeFreqs({ headDim: 64, rotaryFraction: 0.5 }),
  ropeFreqs({ headDim: 64, scaling: 'dynamic', factor: 4, originalLength: 16, totalLength: 100 }),
  ropeFreqs({ headDim: 64, scaling: 'dynamic', factor: 4, originalLength: 16, totalLength: 10 }),
  ropeDecay({ headDim: 64, maxDistance: 100 }),
  ropeDecay({ headDim: 32, maxDistance: 40, base: 100 }),
  ropeDecay({ headDim: 64, maxDistance: 50, rotaryFraction: 0.5 }),
  ropeDecay({ headDim: 64, maxDistance: 60, scaling: 'yarn', factor: 4, originalLength: 4096 }),
  ropeDecay({ headDim: 16, maxDistance: 0 }),
  ropeWavelengths({ headDim: 64 }),
  ropeWavelengths({ headDim: 64, scaling: 'llama3', factor: 8, originalLength: 8192 }),
  ropeWavelengths({ headDim: 32, rotaryFraction: 0.5, base: 500 }),
  xpos([17, 32], {}),
  xpos([17, 32], { key: true }),
  xpos([4, 9, 16], { offset: 5 }),
  xpos([3, 5, 24], { key: true, offset: 100, scaleBase: 64 }),
  xpos([10, 16], { base: 500000, scaleBase: 2048 }),
  // A long sequence: |e| near 2000, ζ^(±e/512) far from 1 on both sides.
  xpos([16, 64], { offset: 4000 }),
  xpos([16, 64], { offset: 4000, key: true }),
  xpos([1, 8], { offset: 3 }),
  xpos([7, 2], { key: true }),
  // The method's defaults are a starting point: other fields override them, and a decay is an
  // option of any rotation.
  xpos([9, 16], { style: 'neox', key: true }),
  xpos([9, 16], { scaleBase: 0 }),
  xpos([2, 9, 32], { rotaryFraction: 0.5, key: true, offset: 2 }),
  xpos([12, 32], { scaling: 'yarn', factor: 4, originalLength: 8 }),
  rope([9, 16], { method: 'rope', scaleBase: 64, key: true }),
  rope([9, 16], { key: true }), // no decay: the keys' side is the queries'
];
