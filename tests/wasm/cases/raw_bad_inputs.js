// Bad inputs to the raw embind functions (cpp/wasm), which skip the JS API's checks: each must
// come back as { error } naming the problem. RAW_CALLS holds one valid call per binding with
// its C++ argument names; the generated cases (bad_values.js) break one argument at a time.
import { badArgumentCases } from './bad_values.js';
import { API_CALLS, MHA_OPTION_CASES, TINY_CHECKPOINT, TINY_GPT2, TINY_HEADER_LENGTH } from './bad_inputs.js';
import { TINY_NEOX } from '../helpers/gpt_neox.js';

const f32 = (n) => new Float32Array(n);
const tensor = (shape, data = f32(shape.reduce((a, b) => a * b, 1))) => ({ data, shape });
const ones = (...shape) => tensor(shape, f32(shape.reduce((a, b) => a * b, 1)).fill(1));
const qkv = () => [tensor([2, 4]), tensor([3, 4]), tensor([3, 4])];

// Every binding of the poslab module; errors.test.js-style completeness is checked in
// raw_bindings.test.js against the module's own list of functions.
export const RAW_CALLS = {
  sinusoidal: () => [
    ['length', 4],
    ['dim', 8],
    ['base', 100],
    ['layout', 'concat'],
    ['offset', 2],
  ],
  learned: () => [
    ['length', 4],
    ['dim', 8],
    ['seed', 1],
    ['std', 0.5],
  ],
  shawIndices: () => [
    ['queryLength', 4],
    ['keyLength', 3],
    ['maxDistance', 2],
  ],
  shaw: () => [
    ['queryLength', 4],
    ['keyLength', 3],
    ['maxDistance', 2],
    ['dim', 4],
    ['seed', 1],
    ['std', 0.5],
  ],
  t5Buckets: () => [
    ['queryLength', 4],
    ['keyLength', 3],
    ['options', { bidirectional: true, numBuckets: 8, maxDistance: 16 }],
  ],
  t5Bias: () => [
    ['heads', 2],
    ['queryLength', 4],
    ['keyLength', 3],
    ['options', { bidirectional: false }],
    ['seed', 1],
  ],
  alibiSlopes: () => [['heads', 4]],
  scoreBias: () => [
    ['method', 'kerple'],
    ['heads', 2],
    ['queryLength', 4],
    ['keyLength', 3],
    ['offset', -1, 'signed'],
    ['options', { r1: 0.5 }],
    ['seed', 1],
  ],
  alibi: () => [
    ['heads', 2],
    ['queryLength', 4],
    ['keyLength', 3],
  ],
  ropeFrequencies: () => [
    ['headDim', 8],
    ['totalLength', 4],
    ['rope', { base: 100, scaling: 'linear', factor: 2 }],
  ],
  rope: () => [
    ['x', ones(2, 4)],
    ['offset', 1],
    ['key', true],
    ['rope', { method: 'xpos', style: 'neox', base: 100, scaleBase: 64 }],
  ],
  ropeDecay: () => [
    ['headDim', 8],
    ['maxDistance', 4],
    ['rope', {}],
  ],
  ropeWavelengths: () => [
    ['headDim', 8],
    ['totalLength', 4],
    ['rope', {}],
  ],
  wavelengths: () => [
    ['dim', 8],
    ['base', 100],
  ],
  // attention and multiHeadAttention take the same arguments raw as through the JS API.
  attention: API_CALLS.attention,
  multiHeadAttention: API_CALLS.multiHeadAttention,
  attentionMask: API_CALLS.attentionMask,
  layerNorm: () => [
    ['x', ones(2, 4)],
    ['eps', 1e-3],
    ['gamma', ones(4)],
    ['beta', tensor([4])],
  ],
  rmsNorm: () => [
    ['x', ones(2, 4)],
    ['eps', 1e-3],
    ['gamma', ones(4)],
  ],
  similarity: () => [
    ['x', ones(3, 4)],
    ['metric', 'dot'],
  ],
  similarityByOffset: () => [
    ['x', ones(3, 4)],
    ['metric', 'dot'],
  ],
  offsetMatrix: () => [
    ['dim', 4],
    ['k', -1],
    ['base', 100],
  ],
  names: () => [],
  defaults: () => [],
  simdTarget: () => [],
  heapBytes: () => [],
  liveHeapBytes: () => [],
  maxElements: () => [],
};

const callRaw = (m, fn, args) => m[fn](...args);

// Non-finite tensor values and an overflowing scale, in the core's words (tensor.cpp).
export const RAW_BAD_INPUTS = [
  ...badArgumentCases(RAW_CALLS, callRaw),
  [
    'layerNorm x NaN names the index',
    (m) => m.layerNorm(tensor([2, 4], Float32Array.of(0, 0, 0, 0, 0, NaN, 0, 0)), 1e-5, undefined, undefined),
    /x\[1, 1\] is NaN/,
  ],
  [
    'layerNorm gamma +inf',
    (m) => m.layerNorm(ones(2, 4), 1e-5, tensor([4], Float32Array.of(1, 1, Infinity, 1)), undefined),
    /gamma\[2\] is \+inf/,
  ],
  [
    'layerNorm beta NaN',
    (m) => m.layerNorm(ones(2, 4), 1e-5, undefined, tensor([4], Float32Array.of(NaN, 0, 0, 0))),
    /beta\[0\] is NaN/,
  ],
  [
    'rmsNorm x +inf',
    (m) => m.rmsNorm(tensor([1, 2], Float32Array.of(1, Infinity)), 1e-5, undefined),
    /x\[0, 1\] is \+inf/,
  ],
  ['rmsNorm gamma NaN', (m) => m.rmsNorm(ones(1, 2), 1e-5, tensor([2], Float32Array.of(1, NaN))), /gamma\[1\] is NaN/],
  [
    'similarity x NaN',
    (m) => m.similarity(tensor([2, 2], Float32Array.of(1, 0, NaN, 1)), 'cosine'),
    /x\[1, 0\] is NaN/,
  ],
  [
    'similarityByOffset x +inf',
    (m) => m.similarityByOffset(tensor([2, 2], Float32Array.of(1, 0, 0, Infinity)), 'dot'),
    /x\[1, 1\] is \+inf/,
  ],
  [
    'rope x NaN',
    (m) => m.rope(tensor([2, 4], Float32Array.of(0, 0, 0, 0, 0, 0, 0, NaN)), 0, false, {}),
    /x\[1, 3\] is NaN/,
  ],
  [
    'rope 3-D x +inf',
    (m) => m.rope(tensor([2, 1, 2], Float32Array.of(0, 0, Infinity, 0)), 0, false, {}),
    /x\[1, 0, 0\] is \+inf/,
  ],
  [
    'attention q NaN',
    (m) => m.attention(tensor([1, 4], Float32Array.of(NaN, 0, 0, 0)), tensor([1, 4]), tensor([1, 4]), {}),
    /q\[0, 0\] is NaN/,
  ],
  [
    'attention k +inf',
    (m) => m.attention(tensor([1, 4]), tensor([1, 4], Float32Array.of(0, Infinity, 0, 0)), tensor([1, 4]), {}),
    /k\[0, 1\] is \+inf/,
  ],
  [
    'attention v -inf',
    (m) => m.attention(tensor([1, 4]), tensor([1, 4]), tensor([1, 4], Float32Array.of(0, 0, -Infinity, 0)), {}),
    /v\[0, 2\] is -inf/,
  ],
  [
    'attention bias NaN',
    (m) => m.attention(...qkv(), { bias: tensor([2, 3], Float32Array.of(0, 0, 0, 0, NaN, 0)) }),
    /bias\[1, 1\] is NaN/,
  ],
  [
    'attention bias +inf',
    (m) => m.attention(...qkv(), { bias: tensor([2, 3], Float32Array.of(0, Infinity, 0, 0, 0, 0)) }),
    /bias\[0, 1\] is \+inf/,
  ],
  ['attention scale 1e308', (m) => m.attention(ones(2, 4), ones(2, 4), ones(2, 4), { scale: 1e308 }), /overflow/],
  ['attention scale -1e308', (m) => m.attention(ones(2, 4), ones(2, 4), ones(2, 4), { scale: -1e308 }), /overflow/],
  [
    'attention scale 1e308, no weights',
    (m) => m.attention(ones(2, 4), ones(2, 4), ones(2, 4), { scale: 1e308, returnWeights: false }),
    /overflow/,
  ],
  ['multiHeadAttention scale 1e308', (m) => m.multiHeadAttention(ones(4, 8), { heads: 2, scale: 1e308 }), /overflow/],
  [
    'multiHeadAttention x NaN',
    (m) => m.multiHeadAttention(tensor([2, 4], Float32Array.of(0, 0, 0, 0, NaN, 0, 0, 0)), { heads: 2 }),
    /x\[1, 0\] is NaN/,
  ],
  ...MHA_OPTION_CASES,
  ['attention keyPadding boolean[]', (m) => m.attention(...qkv(), { keyPadding: [true, false, false] }), /Uint8Array/],
  ['attention bias a string', (m) => m.attention(...qkv(), { bias: 'alibi' }), /bias/],
  ['rope number[] data', (m) => m.rope(tensor([1, 2], [1, 2]), 0, false, {}), /Float32Array/],
  ['rope data length != product(shape)', (m) => m.rope(tensor([2, 4], f32(7)), 0, false, {}), /7/],
  [
    'sinusoidal non-integer length (embind would truncate it)',
    (m) => m.sinusoidal(3.7, 8, 10000, 'interleaved', 0),
    /length/,
  ],
];

// The GPT-2 module: calls on { m, model } with `model` a raw tiny random model handle.
export const RAW_GPT2_CALLS = {
  gpt2Config: () => [['config', { preset: 'small' }]],
  gpt2Positions: () => [],
  liveHeapBytes: () => [],
  gpt2Random: () => [
    ['config', JSON.stringify(TINY_GPT2)],
    ['seed', 1],
  ],
  safetensorsHeaderLength: () => [
    ['first8', TINY_CHECKPOINT.subarray(0, 8)],
    ['fileSize', TINY_CHECKPOINT.length],
    ['name', 'tiny.safetensors'],
  ],
  gpt2Loader: () => [
    ['header', TINY_CHECKPOINT.subarray(0, 8 + TINY_HEADER_LENGTH)],
    ['fileSize', TINY_CHECKPOINT.length],
    ['name', 'tiny.safetensors'],
    ['config', JSON.stringify(TINY_GPT2)],
  ],
  forward: () => [
    ['tokens', Int32Array.of(1, 2)],
    ['options', { position: 'rope', topK: 3, trace: false }],
  ],
  // GPT-NeoX's entries in the same module (its loader and model: tests/wasm/gpt_neox.test.js).
  gptNeoxConfig: () => [['config', { preset: 'pythia-70m' }]],
  gptNeoxRandom: () => [
    ['config', JSON.stringify(TINY_NEOX)],
    ['seed', 1],
    ['dtype', 'F16'],
  ],
  // The Llama family's (its loader and models: tests/wasm/llama.test.js).
  llamaConfig: () => [['config', { preset: 'smollm2-135m' }]],
  llamaRandom: () => [
    ['config', JSON.stringify({ ...TINY_NEOX, model_type: 'llama' })],
    ['seed', 1],
    ['dtype', 'F32'],
  ],
  lmArchitectureOfCheckpoint: () => [
    ['header', TINY_CHECKPOINT.subarray(0, 8 + TINY_HEADER_LENGTH)],
    ['fileSize', TINY_CHECKPOINT.length],
    ['name', 'tiny.safetensors'],
  ],
  lmArchitectureOfConfig: () => [
    ['config', JSON.stringify({ model_type: 'gpt_neox' })],
    ['name', 'config.json'],
  ],
  ropeConfig: () => [
    [
      'config',
      JSON.stringify({ hidden_size: 8, num_attention_heads: 2, num_hidden_layers: 1, max_position_embeddings: 16 }),
    ],
    ['name', 'config.json'],
    ['mropeSample', {}, 'opts'], // its values' checks: rope_config.test.js
  ],
  ropeScalings: () => [],
  modelTypes: () => [],
  wasmHeapBytes: () => [],
  setThreads: () => [['threads', 1]],
  threads: () => [],
  maxThreads: () => [],
  poolProfile: () => [],
  resetPoolProfile: () => [],
};

// Bound functions RAW_GPT2_CALLS leaves out, and where they are tested instead: the streamed
// GPT-NeoX and Llama loaders need a checkpoint written by the CLI (gpt_neox.test.js,
// llama.test.js); the sharded loaders, one template for every architecture, a checkpoint in
// shards (llama.test.js: written by the CLI and split, and transformers' own).
export const RAW_GPT2_ELSEWHERE = ['gptNeoxLoader', 'llamaLoader', 'gptNeoxShardedLoader', 'llamaShardedLoader'];

const callGpt2 = ({ m, model }, fn, args) => (fn === 'forward' ? model.forward(...args) : m[fn](...args));

export const RAW_GPT2_BAD_INPUTS = [
  ...badArgumentCases(RAW_GPT2_CALLS, callGpt2),
  ['forward token out of the vocabulary', ({ model }) => model.forward(Int32Array.of(100), {}), /vocabulary/],
  ['gpt2Config unknown preset', ({ m }) => m.gpt2Config({ preset: 'enormous' }), /enormous/],
  [
    'gpt2Config preset with another key',
    ({ m }) => m.gpt2Config({ preset: 'small', n_layer: 2 }),
    /unknown option 'n_layer'/,
  ],
  ['setThreads 0', ({ m }) => m.setThreads(0), /threads must be at least 1/, 'threads'],
  // The tests load the single-threaded builds, whose most is 1.
  [
    'setThreads past the build',
    ({ m }) => m.setThreads(2),
    /between 1 and 1 \(this build runs one thread\)/,
    'threads',
  ],
];
