// The PosLab JavaScript API: idiomatic wrappers (camelCase option objects, defaults,
// validation, PosLabError) over the raw embind functions of cpp/wasm/bindings.cpp. Results
// are fresh { data, shape } objects owned by JS. Declarations and docs: poslab.d.ts.
// bindPosLab takes an instantiated module; poslab.js also finds and loads one.
import { guardMethods, unwrap } from './raw.js';
import * as check from './validate.js';

const ROPE_STRINGS = ['method', 'style', 'scaling'];
const ROPE_NUMBERS = [
  'base',
  'rotaryFraction',
  'factor',
  'lowFreqFactor',
  'highFreqFactor',
  'betaFast',
  'betaSlow',
  'scaleBase',
  'keepFraction',
];
const ROPE_KEYS = [...ROPE_STRINGS, ...ROPE_NUMBERS, 'originalLength'];
const T5_KEYS = ['bidirectional', 'numBuckets', 'maxDistance'];
const KERPLE_KEYS = ['r1', 'r2'];

/** The API bound to an instantiated Emscripten module (the resolved value of its factory). */
export function bindPosLab(m) {
  const max = m.maxElements();
  // The core's name lists and defaults (cpp/include/poslab/base/names.hpp, defaults.hpp): the
  // defaults below are read from here, never written twice.
  const names = deepFreeze(unwrap(m.names()));
  const defaults = deepFreeze(unwrap(m.defaults()));
  const readers = optionReaders(m, max, defaults);
  // Each area's methods close over the same readers, so an option is read the same way by
  // every method that takes it; the merged object is the API.
  return guardMethods({
    maxElements: max,
    names,
    defaults,
    ...encodingMethods(readers),
    ...ropeMethods(readers),
    ...attentionMethods(readers),
    ...analysisMethods(readers),
    ...moduleMethods(m),
  });
}

/**
 * What every method reads its options with: the raw call, typed readers of one option each
 * (a fallback for an absent one), and the option groups that several methods share (RoPE,
 * T5, KERPLE, mask and offset).
 */
function optionReaders(m, max, defaults) {
  // Calls a raw binding: its { error } result becomes a PosLabError (and so does anything it
  // throws: guardMethods in bindPosLab).
  const call = (name, ...args) => unwrap(m[name](...args));

  const size = (o, key, fallback) =>
    o[key] === undefined && fallback !== undefined ? fallback : check.size(o[key], key, max);
  const num = (o, key, fallback) => (o[key] === undefined ? fallback : check.number(o[key], key));
  const seed = (o, key = 'seed') => (o[key] === undefined ? 0 : check.integer(o[key], key));
  const str = (o, key, fallback) => (o[key] === undefined ? fallback : check.string(o[key], key));
  const bool = (o, key, fallback) => (o[key] === undefined ? fallback : check.boolean(o[key], key));
  const elements = (shape, what) => check.elements(shape, what, max);
  const tensor = (t, name, ranks, negInf = false) => check.tensor(t, name, { ranks, maxElements: max, negInf });

  // RoPE options: type-checked here, absent fields left to the defaults of `method` (the
  // core's table) or else the core's (rope.hpp).
  const rope = (o) => {
    const out = {};
    for (const key of ROPE_STRINGS) if (o[key] !== undefined) out[key] = str(o, key);
    for (const key of ROPE_NUMBERS) if (o[key] !== undefined) out[key] = num(o, key);
    if (o.originalLength !== undefined) out.originalLength = size(o, 'originalLength');
    return out;
  };
  // { mask, offset } of attention and attentionMask in the binding's form.
  const maskOptions = (o) => ({
    mask: o.mask === undefined ? defaults.mask : check.attentionMask(o.mask),
    offset: o.offset === undefined ? defaults.offset : check.integer(o.offset, 'offset', -Number.MAX_SAFE_INTEGER),
  });
  // KERPLE's r1 and r2 from o's fields (absent or 0: each head's drawn from the seed).
  const kerpleOptions = (o) => {
    const out = {};
    for (const key of KERPLE_KEYS) if (o[key] !== undefined) out[key] = num(o, key);
    return out;
  };
  // T5 bucket options from o's fields; absent ones keep the core's defaults (relative.hpp).
  const t5 = (o) => {
    const out = {};
    if (o.bidirectional !== undefined) out.bidirectional = bool(o, 'bidirectional');
    if (o.numBuckets !== undefined) out.numBuckets = size(o, 'numBuckets');
    if (o.maxDistance !== undefined) out.maxDistance = size(o, 'maxDistance');
    return out;
  };

  return { max, defaults, call, size, num, seed, str, bool, elements, tensor, rope, maskOptions, kerpleOptions, t5 };
}

// Absolute and relative encodings: sinusoidal and learned tables, Shaw's and T5's relative
// terms, ALiBi's and KERPLE's biases.
function encodingMethods({ defaults, call, size, num, seed, str, elements, kerpleOptions, t5 }) {
  return {
    sinusoidal(opts) {
      const o = check.options(opts, 'sinusoidal', ['length', 'dim', 'base', 'layout', 'offset']);
      const [L, D] = [size(o, 'length'), size(o, 'dim')];
      elements([L, D], 'sinusoidal table (L, D)');
      const [base, layout] = [num(o, 'base', defaults.base), str(o, 'layout', defaults.layout)];
      return call('sinusoidal', L, D, base, layout, size(o, 'offset', 0));
    },

    learned(opts) {
      const o = check.options(opts, 'learned', ['length', 'dim', 'seed', 'std']);
      const [L, D] = [size(o, 'length'), size(o, 'dim')];
      elements([L, D], 'learned table (L, D)');
      return call('learned', L, D, seed(o), num(o, 'std', defaults.std));
    },

    shawIndices(opts) {
      const o = check.options(opts, 'shawIndices', ['queryLength', 'keyLength', 'maxDistance']);
      const [Lq, Lk] = [size(o, 'queryLength'), size(o, 'keyLength')];
      elements([Lq, Lk], 'Shaw indices (Lq, Lk)');
      return call('shawIndices', Lq, Lk, size(o, 'maxDistance'));
    },

    shaw(opts) {
      const keys = ['queryLength', 'keyLength', 'maxDistance', 'dim', 'seed', 'std'];
      const o = check.options(opts, 'shaw', keys);
      const [Lq, Lk, D] = [size(o, 'queryLength'), size(o, 'keyLength'), size(o, 'dim')];
      elements([Lq, Lk, D], 'Shaw embeddings (Lq, Lk, D)');
      return call('shaw', Lq, Lk, size(o, 'maxDistance'), D, seed(o), num(o, 'std', defaults.std));
    },

    t5Buckets(opts) {
      const o = check.options(opts, 't5Buckets', ['queryLength', 'keyLength', ...T5_KEYS]);
      const [Lq, Lk] = [size(o, 'queryLength'), size(o, 'keyLength')];
      elements([Lq, Lk], 'T5 buckets (Lq, Lk)');
      return call('t5Buckets', Lq, Lk, t5(o));
    },

    t5Bias(opts) {
      const o = check.options(opts, 't5Bias', ['heads', 'queryLength', 'keyLength', ...T5_KEYS, 'seed']);
      const [H, Lq, Lk] = [size(o, 'heads'), size(o, 'queryLength'), size(o, 'keyLength')];
      elements([H, Lq, Lk], 'T5 bias (H, Lq, Lk)');
      return call('t5Bias', H, Lq, Lk, t5(o), seed(o));
    },

    alibiSlopes(opts) {
      const o = check.options(opts, 'alibiSlopes', ['heads']);
      return call('alibiSlopes', size(o, 'heads'));
    },

    kerple(opts) {
      const o = check.options(opts, 'kerple', ['heads', 'queryLength', 'keyLength', 'offset', ...KERPLE_KEYS, 'seed']);
      const [H, Lq, Lk] = [size(o, 'heads'), size(o, 'queryLength'), size(o, 'keyLength')];
      elements([H, Lq, Lk], 'KERPLE bias (H, Lq, Lk)');
      const offset = o.offset === undefined ? 0 : check.integer(o.offset, 'offset', -Number.MAX_SAFE_INTEGER);
      return call('scoreBias', 'kerple', H, Lq, Lk, offset, kerpleOptions(o), seed(o));
    },

    alibi(opts) {
      const o = check.options(opts, 'alibi', ['heads', 'queryLength', 'keyLength']);
      const [H, Lq, Lk] = [size(o, 'heads'), size(o, 'queryLength'), size(o, 'keyLength')];
      elements([H, Lq, Lk], 'ALiBi bias (H, Lq, Lk)');
      return call('alibi', H, Lq, Lk);
    },
  };
}

// Rotary embeddings (frequencies, rotation, decay, wavelengths) and the sinusoid's wavelengths.
function ropeMethods({ defaults, call, size, num, bool, elements, tensor, rope }) {
  return {
    ropeFrequencies(opts) {
      const o = check.options(opts, 'ropeFrequencies', ['headDim', 'totalLength', ...ROPE_KEYS]);
      return call('ropeFrequencies', size(o, 'headDim'), size(o, 'totalLength', 0), rope(o));
    },

    rope(x, opts) {
      const o = check.options(opts, 'rope', ['offset', 'key', ...ROPE_KEYS]);
      const t = tensor(x, 'x', [2, 3]);
      return call('rope', t, size(o, 'offset', 0), bool(o, 'key', false), rope(o));
    },

    ropeDecay(opts) {
      const o = check.options(opts, 'ropeDecay', ['headDim', 'maxDistance', ...ROPE_KEYS]);
      const M = size(o, 'maxDistance');
      elements([M + 1], 'RoPE decay curve');
      return call('ropeDecay', size(o, 'headDim'), M, rope(o));
    },

    ropeWavelengths(opts) {
      const o = check.options(opts, 'ropeWavelengths', ['headDim', 'totalLength', ...ROPE_KEYS]);
      return call('ropeWavelengths', size(o, 'headDim'), size(o, 'totalLength', 0), rope(o));
    },

    wavelengths(opts) {
      const o = check.options(opts, 'wavelengths', ['dim', 'base']);
      return call('wavelengths', size(o, 'dim'), num(o, 'base', defaults.base));
    },
  };
}

// Masks, single-head attention over given q, k, v, and multi-head attention over x.
function attentionMethods({
  max,
  defaults,
  call,
  size,
  num,
  seed,
  str,
  bool,
  elements,
  tensor,
  rope,
  maskOptions,
  kerpleOptions,
  t5,
}) {
  return {
    attentionMask(opts) {
      const o = check.options(opts, 'attentionMask', ['queries', 'keys', 'mask', 'keyPadding', 'offset']);
      const [Lq, Lk] = [size(o, 'queries'), size(o, 'keys')];
      elements([Lq, Lk], 'attention mask (Lq, Lk)');
      const raw = { queries: Lq, keys: Lk, ...maskOptions(o) };
      if (o.keyPadding !== undefined) raw.keyPadding = check.padding(o.keyPadding, 'keyPadding', max);
      return call('attentionMask', raw);
    },

    attention(q, k, v, opts) {
      const keys = ['mask', 'offset', 'scale', 'keyPadding', 'bias', 'returnWeights'];
      const o = check.options(opts, 'attention', keys);
      const args = [tensor(q, 'q', [2, 3]), tensor(k, 'k', [2, 3]), tensor(v, 'v', [2, 3])];
      const returnWeights = bool(o, 'returnWeights', true);
      if (returnWeights) {
        const [qs, ks] = [args[0].shape, args[1].shape];
        elements([...qs.slice(0, -1), ks[ks.length - 2]], 'attention weights (H, Lq, Lk)');
      }
      const raw = { ...maskOptions(o), returnWeights };
      if (o.scale !== undefined) raw.scale = num(o, 'scale');
      if (o.keyPadding !== undefined) raw.keyPadding = check.padding(o.keyPadding, 'keyPadding', max);
      if (o.bias !== undefined) raw.bias = tensor(o.bias, 'bias', [2, 3], true);
      return call('attention', ...args, raw);
    },

    multiHeadAttention(x, opts) {
      const o = check.options(opts, 'multiHeadAttention', [
        'heads',
        'seed',
        'mask',
        'keyPadding',
        'customMask',
        'rope',
        'bias',
        't5',
        't5Seed',
        'kerple',
        'kerpleSeed',
        'scale',
      ]);
      const t = tensor(x, 'x', [2]);
      const raw = {
        heads: size(o, 'heads'),
        seed: seed(o),
        mask: o.mask === undefined ? defaults.mask : check.attentionMask(o.mask),
        bias: str(o, 'bias', defaults.bias),
        t5: t5(check.options(o.t5, 'multiHeadAttention t5', T5_KEYS, 't5')),
        t5Seed: seed(o, 't5Seed'),
        kerple: kerpleOptions(check.options(o.kerple, 'multiHeadAttention kerple', KERPLE_KEYS, 'kerple')),
        kerpleSeed: seed(o, 'kerpleSeed'),
      };
      const L = t.shape[0];
      elements([raw.heads, L, L], 'attention weights (H, L, L)');
      if (o.keyPadding !== undefined) raw.keyPadding = check.padding(o.keyPadding, 'keyPadding', max);
      if (o.customMask !== undefined) raw.customMask = check.padding(o.customMask, 'customMask', max);
      if (o.rope !== undefined && o.rope !== false) {
        raw.rope = o.rope === true ? {} : rope(check.options(o.rope, 'multiHeadAttention rope', ROPE_KEYS, 'rope'));
      }
      if (o.scale !== undefined) raw.scale = num(o, 'scale');
      return call('multiHeadAttention', t, raw);
    },
  };
}

// Norms and the analyses of a table: similarity, similarity by offset, the offset matrix.
function analysisMethods({ max, defaults, call, size, num, str, elements, tensor }) {
  return {
    layerNorm(x, opts) {
      const o = check.options(opts, 'layerNorm', ['eps', 'gamma', 'beta']);
      const t = tensor(x, 'x');
      const gamma = o.gamma === undefined ? undefined : check.vector(o.gamma, 'gamma', max);
      const beta = o.beta === undefined ? undefined : check.vector(o.beta, 'beta', max);
      return call('layerNorm', t, num(o, 'eps', defaults.eps), gamma, beta);
    },

    rmsNorm(x, opts) {
      const o = check.options(opts, 'rmsNorm', ['eps', 'gamma']);
      const t = tensor(x, 'x');
      const gamma = o.gamma === undefined ? undefined : check.vector(o.gamma, 'gamma', max);
      return call('rmsNorm', t, num(o, 'eps', defaults.eps), gamma);
    },

    similarity(x, opts) {
      const o = check.options(opts, 'similarity', ['metric']);
      const t = tensor(x, 'x', [2]);
      elements([t.shape[0], t.shape[0]], 'similarity matrix (L, L)');
      return call('similarity', t, str(o, 'metric', defaults.metric));
    },

    similarityByOffset(x, opts) {
      const o = check.options(opts, 'similarityByOffset', ['metric']);
      const t = tensor(x, 'x', [2]);
      elements([t.shape[0], t.shape[0]], 'similarity matrix (L, L)');
      return call('similarityByOffset', t, str(o, 'metric', defaults.metric));
    },

    offsetMatrix(opts) {
      const o = check.options(opts, 'offsetMatrix', ['dim', 'k', 'base']);
      const D = size(o, 'dim');
      elements([D, D], 'offset matrix (D, D)');
      const k = check.integer(o.k, 'k', -Number.MAX_SAFE_INTEGER);
      return call('offsetMatrix', D, k, num(o, 'base', defaults.base));
    },
  };
}

// The module's own facts: its SIMD target and heap.
function moduleMethods(m) {
  return {
    /** 'WASM' for the SIMD128 build, 'EMU128' or 'SCALAR' for the scalar one. */
    simdTarget: () => m.simdTarget(),
    /** Current size of the WebAssembly memory in bytes. */
    heapBytes: () => m.heapBytes(),
    /** Bytes the module's malloc has handed out and not had back (a leak check). */
    liveHeapBytes: () => m.liveHeapBytes(),
  };
}

// Freezes a plain JSON-like value and everything in it: lab.names and lab.defaults are shared.
function deepFreeze(value) {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
