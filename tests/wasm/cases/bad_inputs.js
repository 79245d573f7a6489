// Bad inputs to the JS API and the word their error message must contain. Each entry is
// [what, (lab) => call, pattern]: the generated cases (bad_values.js) break one argument of
// API_CALLS at a time; the hand-written ones below check rules of particular calls.
import { encodeSafetensors, tinyGpt2Tensors } from '../../helpers/safetensors.js';
import { badArgumentCases } from './bad_values.js';

const t = (data, shape) => ({ data: Float32Array.from(data), shape });
const zeros = (...shape) => ({ data: new Float32Array(shape.reduce((a, b) => a * b, 1)), shape });
const ones = (...shape) => ({ data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(1), shape });
// Attention on valid (4, 8) q, k, v with the given options.
const attend = (lab, options) => lab.attention(zeros(4, 8), zeros(4, 8), zeros(4, 8), options);

// One valid call of every method of the JS API, as [name, value, kind?] per argument; every
// method must be here (errors.test.js checks), so a new one gets its bad-input cases too.
export const API_CALLS = {
  sinusoidal: () => [['options', { length: 4, dim: 8, base: 100, layout: 'concat', offset: 2 }]],
  learned: () => [['options', { length: 4, dim: 8, seed: 1, std: 0.5 }]],
  shawIndices: () => [['options', { queryLength: 4, keyLength: 3, maxDistance: 2 }]],
  shaw: () => [['options', { queryLength: 4, keyLength: 3, maxDistance: 2, dim: 4, seed: 1, std: 0.5 }]],
  t5Buckets: () => [['options', { queryLength: 4, keyLength: 3, bidirectional: true, numBuckets: 8, maxDistance: 16 }]],
  t5Bias: () => [['options', { heads: 2, queryLength: 4, keyLength: 3, seed: 1 }]],
  alibiSlopes: () => [['options', { heads: 4 }]],
  alibi: () => [['options', { heads: 2, queryLength: 4, keyLength: 3 }]],
  kerple: () => [['options', { heads: 2, queryLength: 4, keyLength: 3, r1: 0.5, r2: 2, seed: 1 }]],
  ropeFrequencies: () => [['options', { headDim: 8, totalLength: 4, base: 100, scaling: 'linear', factor: 2 }]],
  rope: () => [
    ['x', ones(2, 4)],
    ['options', { offset: 1, key: true, method: 'xpos', style: 'neox', base: 100, scaleBase: 64 }],
  ],
  ropeDecay: () => [['options', { headDim: 8, maxDistance: 4 }]],
  ropeWavelengths: () => [['options', { headDim: 8, totalLength: 4 }]],
  wavelengths: () => [['options', { dim: 8, base: 100 }]],
  attention: () => [
    ['q', ones(4, 8)],
    ['k', ones(3, 8), 'tensor'],
    ['v', ones(3, 8)],
    ['options', { mask: 'causal', scale: 0.5, returnWeights: false }],
  ],
  multiHeadAttention: () => [
    ['x', ones(4, 8)],
    ['options', { heads: 2, seed: 1, t5Seed: 2, scale: 0.5 }],
  ],
  attentionMask: () => [['options', { queries: 4, keys: 3, mask: 'window:2' }]],
  layerNorm: () => [
    ['x', ones(2, 4)],
    ['options', { eps: 1e-3, gamma: ones(4), beta: zeros(4) }],
  ],
  rmsNorm: () => [
    ['x', ones(2, 4)],
    ['options', { eps: 1e-3, gamma: ones(4) }],
  ],
  similarity: () => [
    ['x', ones(3, 4)],
    ['options', { metric: 'dot' }],
  ],
  similarityByOffset: () => [
    ['x', ones(3, 4)],
    ['options', { metric: 'dot' }],
  ],
  offsetMatrix: () => [['options', { dim: 4, k: -1, base: 100 }]],
};

const callApi = (lab, fn, args) => lab[fn](...args);

// Every method with one argument too many, and with none at all (each has something required).
const ARITY = Object.entries(API_CALLS).flatMap(([fn, make]) => [
  [
    `${fn} with one argument too many`,
    (lab) => callApi(lab, fn, [...make().map(([, v]) => v), {}]),
    /at most \d+ argument/,
  ],
  [`${fn} with no arguments`, (lab) => callApi(lab, fn, []), /required|tensor/],
]);

// multiHeadAttention's option objects, refused with the same message by the JS API and by the
// raw binding, which takes the same arguments (raw_bad_inputs.js runs these too).
export const MHA_OPTION_CASES = [
  [
    'multiHeadAttention t5 null',
    (api) => api.multiHeadAttention(ones(4, 8), { heads: 2, t5: null }),
    /t5 options must be an object/,
  ],
  [
    'multiHeadAttention rope a number',
    (api) => api.multiHeadAttention(ones(4, 8), { heads: 2, rope: 5 }),
    /rope options must be an object/,
  ],
  [
    'multiHeadAttention rope unknown option',
    (api) => api.multiHeadAttention(ones(4, 8), { heads: 2, rope: { sytle: 'neox' } }),
    /unknown option 'sytle'/,
  ],
  [
    'multiHeadAttention xpos is a rope method, not an option',
    (api) => api.multiHeadAttention(ones(4, 8), { heads: 2, xpos: {} }),
    /unknown option 'xpos'/,
  ],
  [
    'multiHeadAttention rope scalebase misspelled',
    (api) => api.multiHeadAttention(ones(4, 8), { heads: 2, rope: { method: 'xpos', scalebase: 64 } }),
    /unknown option 'scalebase'/,
  ],
  [
    'multiHeadAttention rope scaleBase negative',
    (api) => api.multiHeadAttention(ones(4, 8), { heads: 2, rope: { method: 'xpos', scaleBase: -1 } }),
    /scale base must be 0 \(no decay\) or a positive finite number \(got -1\)/,
  ],
  [
    'multiHeadAttention rope method not a rotation',
    (api) => api.multiHeadAttention(ones(4, 8), { heads: 2, rope: { method: 'alibi' } }),
    /position method 'alibi' does not rotate q and k/,
  ],
  [
    'multiHeadAttention rope method a number',
    (api) => api.multiHeadAttention(ones(4, 8), { heads: 2, rope: { method: 1 } }),
    /\bmethod\b/,
  ],
  [
    'multiHeadAttention t5 bidirectional a number',
    (api) => api.multiHeadAttention(ones(4, 8), { heads: 2, bias: 't5', t5: { bidirectional: 1 } }),
    /bidirectional/,
  ],
];

export const BAD_INPUTS = [
  ...badArgumentCases(API_CALLS, callApi),
  ...ARITY,
  // Errors name the option they are about (PosLabError.field, the 4th entry), whether the JS
  // checks or the core find them: the page shows the message beside that control.
  [
    'llama3 highFreqFactor 0 names highFreqFactor',
    (lab) => lab.ropeFrequencies({ headDim: 8, scaling: 'llama3', factor: 2, originalLength: 16, highFreqFactor: 0 }),
    /high_freq_factor/,
    'highFreqFactor',
  ],
  [
    'yarn without originalLength',
    (lab) => lab.ropeFrequencies({ headDim: 8, scaling: 'yarn', factor: 2 }),
    /original/,
    'originalLength',
  ],
  ['odd rotary dim', (lab) => lab.ropeFrequencies({ headDim: 6, rotaryFraction: 0.5 }), /rotary/, 'rotaryFraction'],
  ['odd head dim', (lab) => lab.ropeFrequencies({ headDim: 7 }), /rotary/, 'headDim'],
  // A rotation method of the core's table, and its decay (xPos's).
  [
    'rope unknown method',
    (lab) => lab.rope(zeros(2, 4), { method: 'spiral' }),
    /unknown rotation method 'spiral'/,
    'method',
  ],
  [
    'rope method that does not rotate',
    (lab) => lab.rope(zeros(2, 4), { method: 'alibi' }),
    /position method 'alibi' does not rotate q and k/,
    'method',
  ],
  [
    'rope method the core lacks',
    (lab) => lab.rope(zeros(2, 4), { method: 'fire' }),
    /rotation method 'fire' is not available here/,
    'method',
  ],
  [
    'rope scaleBase negative',
    (lab) => lab.rope(zeros(2, 4), { method: 'xpos', scaleBase: -1 }),
    /the scale base must be 0 \(no decay\) or a positive finite number \(got -1\)/,
    'scaleBase',
  ],
  [
    'rope decay past float32',
    // Position 0 of 200 as a query: ζ₀^(−100/1) = 3.5^100.
    (lab) => lab.rope(ones(200, 4), { method: 'xpos', scaleBase: 1 }),
    /the rotation's scale \S+ at position 0 of 200 overflows float32; use a larger scaleBase or a shorter sequence/,
    'x',
  ],
  ['rope xpos odd width', (lab) => lab.rope(zeros(2, 5), { method: 'xpos' }), /rotary/, 'headDim'],
  ['sinusoidal odd dim names dim', (lab) => lab.sinusoidal({ length: 4, dim: 7 }), /even/, 'dim'],
  ['attention window:0', (lab) => attend(lab, { mask: 'window:0' }), /window/, 'window'],
  ['attention { window: 0 }', (lab) => attend(lab, { mask: { window: 0 } }), /window/, 'window'],
  ['attention mask {}', (lab) => attend(lab, { mask: {} }), /mask\.window/, 'mask'],
  ['attention unknown mask', (lab) => attend(lab, { mask: 'sideways' }), /unknown mask/, 'mask'],
  ['attention keyPadding too short', (lab) => attend(lab, { keyPadding: [1, 0] }), /key padding/, 'keyPadding'],
  ['attention offset fractional', (lab) => attend(lab, { offset: 1.5 }), /offset/, 'offset'],
  ['attention offset past 2^30', (lab) => attend(lab, { mask: 'causal', offset: 2 ** 31 }), /offset/, 'offset'],
  ['attention k of another width', (lab) => lab.attention(zeros(4, 8), zeros(4, 6), zeros(4, 8)), /widths/, 'k'],
  ['attentionMask queries missing', (lab) => lab.attentionMask({ keys: 3 }), /queries/, 'queries'],
  ['attentionMask offset NaN', (lab) => lab.attentionMask({ queries: 2, keys: 3, offset: NaN }), /offset/, 'offset'],
  [
    'attentionMask keyPadding too long',
    (lab) => lab.attentionMask({ queries: 2, keys: 3, keyPadding: [0, 0, 0, 1] }),
    /key padding/,
    'keyPadding',
  ],
  [
    'multiHeadAttention customMask too short',
    (lab) => lab.multiHeadAttention(ones(4, 8), { heads: 2, customMask: [1, 0] }),
    /custom mask/,
    'customMask',
  ],
  [
    'multiHeadAttention 3 heads for D = 8',
    (lab) => lab.multiHeadAttention(ones(4, 8), { heads: 3 }),
    /divisible/,
    'heads',
  ],
  [
    'multiHeadAttention unknown bias',
    (lab) => lab.multiHeadAttention(ones(4, 8), { heads: 2, bias: 'rope' }),
    /position bias/,
    'bias',
  ],
  [
    'multiHeadAttention rope factor below 1',
    (lab) => lab.multiHeadAttention(ones(4, 8), { heads: 2, rope: { scaling: 'linear', factor: 0.5 } }),
    /factor/,
    'factor',
  ],
  [
    'multiHeadAttention t5 numBuckets 1',
    (lab) => lab.multiHeadAttention(ones(4, 8), { heads: 2, bias: 't5', t5: { numBuckets: 1 } }),
    /num_buckets/,
    'numBuckets',
  ],
  ['similarity unknown metric', (lab) => lab.similarity(ones(3, 4), { metric: 'l2' }), /metric/, 'metric'],
  ['layerNorm gamma of another width', (lab) => lab.layerNorm(ones(2, 4), { gamma: ones(3) }), /gamma/, 'gamma'],
  ['sinusoidal length missing', (lab) => lab.sinusoidal({ dim: 8 }), /length/],
  ['sinusoidal odd dim', (lab) => lab.sinusoidal({ length: 4, dim: 7 }), /dim/],
  ['sinusoidal base NaN', (lab) => lab.sinusoidal({ length: 4, dim: 8, base: NaN }), /base/],
  ['sinusoidal base Infinity', (lab) => lab.sinusoidal({ length: 4, dim: 8, base: Infinity }), /base/],
  ['sinusoidal base negative', (lab) => lab.sinusoidal({ length: 4, dim: 8, base: -2 }), /base/],
  ['sinusoidal base 0', (lab) => lab.sinusoidal({ length: 4, dim: 8, base: 0 }), /base/],
  ['sinusoidal base a string', (lab) => lab.sinusoidal({ length: 4, dim: 8, base: '100' }), /base/],
  ['sinusoidal unknown layout', (lab) => lab.sinusoidal({ length: 4, dim: 8, layout: 'diagonal' }), /layout/],
  ['sinusoidal misspelled option', (lab) => lab.sinusoidal({ lenght: 4, dim: 8 }), /lenght/],
  ['rope misspelled option', (lab) => lab.rope(zeros(2, 4), { sytle: 'gptj' }), /sytle/],
  ['sinusoidal options null', (lab) => lab.sinusoidal(null), /option|length/],
  [
    'sinusoidal over the element cap',
    (lab) => lab.sinusoidal({ length: 1 << 20, dim: 1 << 10 }),
    [/elements|too large/, /limit/],
  ],
  [
    'learned over the element cap',
    (lab) => lab.learned({ length: lab.maxElements, dim: 2 }),
    [/elements|too large/, /limit/],
  ],
  [
    'alibi over the element cap',
    (lab) => lab.alibi({ heads: 64, queryLength: 8192, keyLength: 8192 }),
    [/elements|too large/, /limit/],
  ],
  [
    't5Buckets over the element cap',
    (lab) => lab.t5Buckets({ queryLength: 1e5, keyLength: 1e5, bidirectional: true }),
    [/elements|too large/, /limit/],
  ],
  ['learned negative seed', (lab) => lab.learned({ length: 4, dim: 4, seed: -1 }), /seed/],
  ['learned non-integer seed', (lab) => lab.learned({ length: 4, dim: 4, seed: 1.5 }), /seed/],
  ['learned negative std', (lab) => lab.learned({ length: 4, dim: 4, std: -0.1 }), /std/],
  ['learned NaN std', (lab) => lab.learned({ length: 4, dim: 4, std: NaN }), /std/],
  [
    'shaw negative maxDistance',
    (lab) => lab.shaw({ queryLength: 4, keyLength: 4, maxDistance: -1, dim: 4 }),
    /maxDistance|distance/,
  ],
  [
    'shawIndices non-integer queryLength',
    (lab) => lab.shawIndices({ queryLength: 2.5, keyLength: 4, maxDistance: 2 }),
    /queryLength/,
  ],
  [
    't5Buckets too few buckets',
    (lab) => lab.t5Buckets({ queryLength: 4, keyLength: 4, bidirectional: true, numBuckets: 2 }),
    /bucket/,
  ],
  ['alibi 0 heads', (lab) => lab.alibi({ heads: 0, queryLength: 4, keyLength: 4 }), /heads/],
  ['alibiSlopes NaN heads', (lab) => lab.alibiSlopes({ heads: NaN }), /heads/],
  ['offsetMatrix odd dim', (lab) => lab.offsetMatrix({ dim: 5, k: 1 }), /dim/],
  ['offsetMatrix non-integer k', (lab) => lab.offsetMatrix({ dim: 4, k: 1.5 }), /\bk\b/],
  ['wavelengths odd dim', (lab) => lab.wavelengths({ dim: 3 }), /dim/],
  ['ropeFrequencies odd headDim', (lab) => lab.ropeFrequencies({ headDim: 7 }), /dim/i],
  ['ropeFrequencies unknown scaling', (lab) => lab.ropeFrequencies({ headDim: 8, scaling: 'bogus' }), /scaling/],
  [
    'ropeFrequencies factor below 1',
    (lab) => lab.ropeFrequencies({ headDim: 8, scaling: 'linear', factor: 0.5 }),
    /factor/,
  ],
  [
    'ropeFrequencies factor NaN',
    (lab) => lab.ropeFrequencies({ headDim: 8, scaling: 'linear', factor: NaN }),
    /factor/,
  ],
  [
    'ropeFrequencies yarn without originalLength',
    (lab) => lab.ropeFrequencies({ headDim: 8, scaling: 'yarn', factor: 4 }),
    /original/,
  ],
  [
    'ropeFrequencies rotaryFraction 0',
    (lab) => lab.ropeFrequencies({ headDim: 8, rotaryFraction: 0 }),
    /fraction|rotary/,
  ],
  [
    'ropeFrequencies rotaryFraction 1.5',
    (lab) => lab.ropeFrequencies({ headDim: 8, rotaryFraction: 1.5 }),
    /fraction|rotary/,
  ],
  ['ropeFrequencies base 1', (lab) => lab.ropeFrequencies({ headDim: 8, base: 1 }), /base/],
  [
    'ropeFrequencies totalLength negative',
    (lab) => lab.ropeFrequencies({ headDim: 8, totalLength: -1 }),
    /totalLength|length/,
  ],
  ['rope unknown style', (lab) => lab.rope(zeros(2, 4), { style: 'sideways' }), /style/],
  ['rope odd width', (lab) => lab.rope(zeros(2, 5)), /dim|width|even/],
  ['rope 1-D input', (lab) => lab.rope(zeros(8)), /\(L, D\)|shape|dim/],
  ['rope 4-D input', (lab) => lab.rope(zeros(1, 1, 2, 4)), /\(L, D\)|shape|dim/],
  ['rope data length != product(shape)', (lab) => lab.rope(t([1, 2, 3, 4, 5, 6, 7], [2, 4])), [/\b7\b/, /\b8\b/]],
  ['rope shape with NaN', (lab) => lab.rope({ data: new Float32Array(8), shape: [2, NaN] }), [/shape/, /NaN|integer/]],
  ['rope shape negative', (lab) => lab.rope({ data: new Float32Array(8), shape: [-2, -4] }), /shape/],
  ['rope shape non-integer', (lab) => lab.rope({ data: new Float32Array(8), shape: [2.5, 3.2] }), /shape/],
  ['rope shape not an array', (lab) => lab.rope({ data: new Float32Array(8), shape: '2,4' }), /shape/],
  ['rope tensor without data', (lab) => lab.rope({ shape: [2, 4] }), [/\bx\b/, /data/]],
  ['rope tensor without shape', (lab) => lab.rope({ data: new Float32Array(8) }), [/\bx\b/, /shape/]],
  ['rope plain object tensor', (lab) => lab.rope({}), [/\bx\b/, /tensor/]],
  ['rope null tensor', (lab) => lab.rope(null), [/\bx\b/, /tensor/]],
  ['rope number tensor', (lab) => lab.rope(3), [/\bx\b/, /tensor/]],
  ['rope data a string', (lab) => lab.rope({ data: 'abcdefgh', shape: [2, 4] }), /data/],
  [
    'rope data with a string element',
    (lab) => lab.rope({ data: [1, 2, 3, 'x'], shape: [2, 2] }),
    [/data\[3\]|index 3/, /number/],
  ],
  ['attention q/k widths differ', (lab) => lab.attention(zeros(4, 8), zeros(4, 6), zeros(4, 6)), /width|shape/],
  ['attention k/v lengths differ', (lab) => lab.attention(zeros(4, 8), zeros(4, 8), zeros(5, 8)), /length|shape/],
  ['attention 2-D q with 3-D k', (lab) => lab.attention(zeros(4, 8), zeros(1, 4, 8), zeros(1, 4, 8)), /shape|\(L, d\)/],
  ['attention head counts differ', (lab) => lab.attention(zeros(2, 4, 8), zeros(3, 4, 8), zeros(3, 4, 8)), /head/],
  [
    'attention q with NaN',
    (lab) => lab.attention(t([NaN, 0, 0, 0], [1, 4]), zeros(1, 4), zeros(1, 4)),
    [/\bq\b/, /NaN/],
  ],
  [
    'attention v with Infinity',
    (lab) => lab.attention(zeros(1, 4), zeros(1, 4), t([Infinity, 0, 0, 0], [1, 4])),
    [/\bv\b/, /Infinity/],
  ],
  ['attention unknown mask', (lab) => attend(lab, { mask: 'sideways' }), /mask/],
  ['attention window:0', (lab) => attend(lab, { mask: 'window:0' }), /window/],
  ['attention window:x', (lab) => attend(lab, { mask: 'window:x' }), /window/],
  ['attention {window: 2.5}', (lab) => attend(lab, { mask: { window: 2.5 } }), /window/],
  ['attention {window: -1}', (lab) => attend(lab, { mask: { window: -1 } }), /window/],
  ['attention scale NaN', (lab) => attend(lab, { scale: NaN }), /scale/],
  ['attention scale Infinity', (lab) => attend(lab, { scale: Infinity }), /scale/],
  ['attention scale a string', (lab) => attend(lab, { scale: '0.5' }), /scale/],
  ['attention keyPadding wrong length', (lab) => attend(lab, { keyPadding: new Uint8Array(3) }), /padding/],
  ['attention keyPadding a string', (lab) => attend(lab, { keyPadding: '0101' }), /keyPadding|padding/],
  ['attention bias wrong shape', (lab) => attend(lab, { bias: zeros(4, 5) }), /bias/],
  [
    'attention bias with NaN',
    (lab) => lab.attention(zeros(1, 8), zeros(2, 8), zeros(2, 8), { bias: t([0, NaN], [1, 2]) }),
    [/bias/, /NaN/],
  ],
  ['attention bias a number', (lab) => attend(lab, { bias: 1 }), /bias/],
  ['attention q plain object', (lab) => lab.attention({}, zeros(4, 8), zeros(4, 8)), [/\bq\b/, /tensor/]],
  ['attention q null', (lab) => lab.attention(null, zeros(4, 8), zeros(4, 8)), [/\bq\b/, /tensor/]],
  [
    'multiHeadAttention heads do not divide D',
    (lab) => lab.multiHeadAttention(zeros(4, 8), { heads: 3 }),
    /divisible|heads/,
  ],
  ['multiHeadAttention heads 0', (lab) => lab.multiHeadAttention(zeros(4, 8), { heads: 0 }), /heads/],
  ['multiHeadAttention heads a string', (lab) => lab.multiHeadAttention(zeros(4, 8), { heads: '2' }), /heads/],
  [
    'multiHeadAttention unknown bias',
    (lab) => lab.multiHeadAttention(zeros(4, 8), { heads: 2, bias: 'relative' }),
    /bias/,
  ],
  ['multiHeadAttention 3-D x', (lab) => lab.multiHeadAttention(zeros(1, 4, 8), { heads: 2 }), /\(L, D\)|shape/],
  ['layerNorm gamma wrong length', (lab) => lab.layerNorm(zeros(2, 4), { gamma: zeros(3) }), /gamma/],
  ['layerNorm negative eps', (lab) => lab.layerNorm(zeros(2, 4), { eps: -1 }), /eps/],
  ['rmsNorm eps NaN', (lab) => lab.rmsNorm(zeros(2, 4), { eps: NaN }), /eps/],
  ['similarity unknown metric', (lab) => lab.similarity(zeros(3, 4), { metric: 'euclid' }), /metric/],
  ['similarity 3-D input', (lab) => lab.similarity(zeros(2, 3, 4)), /\(L, D\)|shape/],
  [
    'attention scale 1e308 overflows float32',
    (lab) => lab.attention(ones(2, 4), ones(2, 4), ones(2, 4), { scale: 1e308 }),
    /overflow/,
  ],
  [
    'attention scale -1e308 overflows float32',
    (lab) => lab.attention(ones(2, 4), ones(2, 4), ones(2, 4), { scale: -1e308 }),
    /overflow/,
  ],
  [
    'multiHeadAttention scale 1e308 overflows float32',
    (lab) => lab.multiHeadAttention(ones(4, 8), { heads: 2, scale: 1e308 }),
    /overflow/,
  ],
  [
    'attention bias +Infinity',
    (lab) => lab.attention(zeros(1, 8), zeros(2, 8), zeros(2, 8), { bias: t([0, Infinity], [1, 2]) }),
    [/bias/, /inf|finite/i],
  ],
  [
    'rope number[] value past float32 (1e39)',
    (lab) => lab.rope({ data: [1e39, 0, 0, 0], shape: [1, 4] }),
    [/\bx\b/, /float32|inf|finite/i],
  ],
  [
    'layerNorm gamma number[] value past float32',
    (lab) => lab.layerNorm(ones(1, 2), { gamma: [1, -1e39] }),
    [/gamma/, /float32|inf|finite/i],
  ],
  ...MHA_OPTION_CASES,
];

// GPT-2 (poslab-lm): calls on the API { lab, model } with `model` a live tiny random model.
export const TINY_GPT2 = {
  vocab_size: 100,
  n_positions: 16,
  n_embd: 32,
  n_layer: 2,
  n_head: 4,
  layer_norm_epsilon: 1e-5,
};
export const TINY_CHECKPOINT = encodeSafetensors(tinyGpt2Tensors(TINY_GPT2, 7));
export const TINY_HEADER_LENGTH = Number(new DataView(TINY_CHECKPOINT.buffer).getBigUint64(0, true));

export const GPT2_API_CALLS = {
  gpt2Config: () => [['options', { preset: 'small' }]],
  gpt2Random: () => [['options', { config: TINY_GPT2, seed: 1 }]],
  safetensorsHeaderLength: () => [
    ['first8', TINY_CHECKPOINT.subarray(0, 8)],
    ['fileSize', TINY_CHECKPOINT.length],
    ['name', 'tiny.safetensors'],
  ],
  gpt2Loader: () => [
    [
      'options',
      {
        header: TINY_CHECKPOINT.subarray(0, 8 + TINY_HEADER_LENGTH),
        fileSize: TINY_CHECKPOINT.length,
        config: TINY_GPT2,
      },
    ],
  ],
  forward: () => [
    ['tokens', [1, 2]],
    ['options', { position: 'rope', topK: 3, trace: false }],
  ],
};

const callGpt2 = ({ lab, model }, fn, args) => (fn === 'forward' ? model.forward(...args) : lab[fn](...args));

export const GPT2_BAD_INPUTS = [
  ...badArgumentCases(GPT2_API_CALLS, callGpt2),
  ...Object.entries(GPT2_API_CALLS).map(([fn, make]) => [
    `${fn} with one argument too many`,
    (api) => callGpt2(api, fn, [...make().map(([, v]) => v), {}]),
    /at most \d+ argument/,
  ]),
  ['gpt2Config preset and config', ({ lab }) => lab.gpt2Config({ preset: 'small', config: TINY_GPT2 }), /not both/],
  ['gpt2Random unknown preset', ({ lab }) => lab.gpt2Random({ preset: 'enormous' }), /enormous/],
  ['forward with no arguments', ({ model }) => model.forward(), /tokens/],
  ['forward token NaN', ({ model }) => model.forward([1, NaN]), /tokens\[1\]/],
  ['forward token negative', ({ model }) => model.forward([-1]), /tokens\[0\]/],
  ['forward token a string', ({ model }) => model.forward(['1']), /tokens\[0\]/],
  ['forward topK 0', ({ model }) => model.forward([1], { topK: 0 }), /topK/],
  ['loader append a string', ({ lab }) => lab.gpt2Loader(GPT2_API_CALLS.gpt2Loader()[0][1]).append('x'), /chunk/],
];
