// Native-vs-wasm cases for the absolute and relative encodings: each case states its
// options once; `cli` gives the native command (the generator adds `-o`), `run` the JS call.
import { label, toFlags } from './flags.js';

const sinusoidal = (o) => ({
  name: `sinusoidal ${label(o)}`,
  cli: () => [
    'sinusoidal',
    ...toFlags(o, { length: '--len', dim: '--dim', base: '--base', layout: '--layout', offset: '--offset' }),
  ],
  run: (lab) => ({ out: lab.sinusoidal(o) }),
});

const learned = (o) => ({
  name: `learned ${label(o)}`,
  cli: () => ['learned', ...toFlags(o, { length: '--len', dim: '--dim', seed: '--seed' })],
  run: (lab) => ({ out: lab.learned(o) }),
});

const shaw = (o) => ({
  name: `shaw ${label(o)}`,
  cli: () => [
    'shaw',
    ...toFlags(o, {
      queryLength: '--qlen',
      keyLength: '--klen',
      maxDistance: '--max-distance',
      dim: '--dim',
      seed: '--seed',
    }),
  ],
  run: (lab) => ({ out: lab.shaw(o) }),
});

const t5Buckets = (o) => ({
  name: `t5-buckets ${label(o)}`,
  cli: () => [
    't5-buckets',
    ...toFlags(o, {
      queryLength: '--qlen',
      keyLength: '--klen',
      bidirectional: '--bidirectional',
      numBuckets: '--buckets',
      maxDistance: '--max-distance',
    }),
  ],
  run: (lab) => ({ out: lab.t5Buckets(o) }),
});

// The CLI's alibi is square (--len); the JS call takes both lengths.
const alibi = (heads, length) => ({
  name: `alibi heads=${heads} length=${length}`,
  cli: () => ['alibi', '--heads', heads, '--len', length],
  run: (lab) => ({ out: lab.alibi({ heads, queryLength: length, keyLength: length }) }),
});

const alibiSlopes = (heads) => ({
  name: `alibi-slopes heads=${heads}`,
  cli: () => ['alibi-slopes', '--heads', heads],
  run: (lab) => ({ out: lab.alibiSlopes({ heads }) }),
});

// t5Buckets always states `bidirectional`, so each case tests the math, not the default
// (false, as the core's and the CLI's; no_cli_counterpart.test.js checks it).
export const ENCODING_CASES = [
  sinusoidal({ length: 37, dim: 64 }),
  sinusoidal({ length: 37, dim: 64, layout: 'interleaved' }),
  sinusoidal({ length: 37, dim: 64, layout: 'concat' }),
  sinusoidal({ length: 16, dim: 32, offset: 1000 }),
  sinusoidal({ length: 16, dim: 32, layout: 'concat', offset: 1000 }),
  // Positions up to 65 536: where float32 angle arithmetic would lose digits.
  sinusoidal({ length: 8, dim: 64, offset: 65529 }),
  sinusoidal({ length: 20, dim: 16, base: 500 }),
  sinusoidal({ length: 20, dim: 16, base: 500, layout: 'concat' }),
  // Widths that are not a multiple of the SIMD lane count exercise the vector tails.
  sinusoidal({ length: 9, dim: 2 }),
  sinusoidal({ length: 9, dim: 6 }),
  sinusoidal({ length: 9, dim: 10, layout: 'concat' }),
  sinusoidal({ length: 1, dim: 18 }),
  learned({ length: 10, dim: 16 }),
  learned({ length: 33, dim: 7, seed: 42 }),
  learned({ length: 5, dim: 64, seed: 123456789 }),
  shaw({ queryLength: 7, keyLength: 9, maxDistance: 3, dim: 8, seed: 5 }),
  shaw({ queryLength: 6, keyLength: 4, maxDistance: 0, dim: 3 }),
  shaw({ queryLength: 5, keyLength: 5, maxDistance: 16, dim: 4 }),
  t5Buckets({ queryLength: 64, keyLength: 64, bidirectional: true }),
  t5Buckets({ queryLength: 64, keyLength: 64, bidirectional: false }),
  t5Buckets({ queryLength: 40, keyLength: 50, bidirectional: false, numBuckets: 16, maxDistance: 32 }),
  t5Buckets({ queryLength: 40, keyLength: 50, bidirectional: true, numBuckets: 16, maxDistance: 32 }),
  // Long key ranges reach the logarithmic buckets and their float32 edges.
  t5Buckets({ queryLength: 3, keyLength: 300, bidirectional: true }),
  t5Buckets({ queryLength: 300, keyLength: 3, bidirectional: false }),
  alibi(8, 16),
  alibi(6, 9),
  alibi(12, 5),
  alibi(1, 4),
  ...[1, 2, 6, 8, 12, 16, 20, 64].map(alibiSlopes),
];
