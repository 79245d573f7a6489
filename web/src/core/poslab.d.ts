// Types of the PosLab JavaScript API (poslab.js). Shapes use the core's short names:
// L positions, D width, H heads, d head width, Lq/Lk query/key lengths, R rotary dims.

/**
 * Thrown for every bad input; the message is the C++ core's (as the CLI prints it) or the wrapper's.
 *
 * `field` names the option or argument the error is about, as the caller spelled it, so a page
 * can show the message beside that control without parsing it; undefined when the error is
 * about no single one (a result too large, a module failure). The core and the JS checks use
 * the same names:
 * - an option of an options object: its key, also inside nested objects ('lowFreqFactor' for
 *   rope: { lowFreqFactor }, 'numBuckets' for t5: { numBuckets }); an unknown option: that key;
 * - a tensor or flags argument: its name, whatever part of it is wrong ('x' for x.shape[0] or
 *   x.data[3]; 'q', 'k', 'v', 'bias', 'keyPadding', 'customMask', 'gamma', 'beta');
 *   q/k/v that disagree name the later one ('k' when k's width differs from q's);
 * - mask: 'mask' for an unknown or malformed mask, 'window' for a bad window size W
 *   ('window:0', { window: 0 }); 'offset' for a mask offset out of range;
 * - RoPE: 'base', 'factor', 'originalLength', 'rotaryFraction' (also for an odd R when
 *   rotaryFraction < 1, else 'headDim'), 'betaFast'/'betaSlow' (the first that is not
 *   positive), 'lowFreqFactor'/'highFreqFactor' (the one out of range; 'lowFreqFactor' when
 *   both are valid but low > high), 'headDim' when ntk/dynamic need R > 2, 'style', 'scaling',
 *   'offset', 'totalLength', 'method' (unknown, or not a rotation), 'scaleBase' (negative);
 *   'x' when a decaying rotation's scale takes x past float32;
 * - sizes: 'length', 'dim', 'headDim', 'heads' (also "D not divisible by H"), 'queryLength',
 *   'keyLength', 'maxDistance', 'queries', 'keys'; 'base', 'std', 'eps', 'scale', 'metric',
 *   'layout', 'bias' (multiHeadAttention's position bias name), 'seed', 't5Seed';
 * - GPT-2 (gpt2.d.ts): 'tokens', 'position', 'topK', 'trace', 'config', 'preset', 'fileSize',
 *   'name', 'first8', 'header', 'chunk'.
 */
export class PosLabError extends Error {
  name: 'PosLabError';
  readonly field: string | undefined;
}

/** A dense row-major tensor passed in. `data.length` must equal the product of `shape`. */
export interface TensorInput {
  data: Float32Array | number[];
  shape: number[];
}

/** A result: a fresh copy owned by JS, unaffected by later calls or wasm memory growth. */
export interface Tensor<T extends Float32Array | Float64Array | Int32Array | Uint8Array = Float32Array> {
  data: T;
  shape: number[];
}

export interface CreateOptions {
  /**
   * 'simd' (SIMD128, default), 'relaxed' (SIMD128 with the GEMM and attention products on
   * relaxed SIMD's f32x4.relaxed_madd: Chromium, or Node 20 with
   * --experimental-wasm-relaxed-simd; build/wasm/simd/relaxed) or 'scalar' (same sources, no
   * SIMD: the benchmark baseline).
   */
  variant?: 'simd' | 'relaxed' | 'scalar';
  /**
   * The .wasm bytes. Required in Node (Emscripten 3.1.6 cannot fetch a file path there): pass
   * fs.readFileSync('build/wasm/<variant>/poslab.wasm') (simd/relaxed/ for 'relaxed'). In the browser the module fetches
   * poslab.wasm next to poslab.mjs by itself.
   */
  wasmBinary?: Uint8Array | ArrayBuffer;
  /**
   * The Emscripten module factory (default export of poslab.mjs), for bundlers or hosts that
   * load it their own way. By default `variant` picks build/wasm/<variant>/poslab.mjs.
   */
  factory?: (moduleArgs: object) => Promise<object>;
}

/** Loads one build variant of the wasm module and returns the API bound to it. */
export function createPosLab(options?: CreateOptions): Promise<PosLab>;

/** The API bound to an already instantiated module (what poslab.mjs's factory resolves to). */
export function bindPosLab(module: object): PosLab;

/** The language models (their own module): gpt2.d.ts and gpt-neox.d.ts. */
export { bindGpt2, createGpt2Lab } from './gpt2';
export { bindLm } from './gpt-neox';

/** The length-generalisation lab's trainer (its own module): train.d.ts. */
export { bindTrain, createTrainLab } from './train';

/**
 * RoPE configuration (rope.hpp). All optional; defaults are those of `method`, else the core's.
 * A decaying rotation (scaleBase > 0; Sun et al. 2023, as torchscale has it) also scales each
 * rotated pair by ζ_i^(e/scaleBase) for queries and ζ_i^(−e/scaleBase) for keys,
 * ζ_i = (2i + 0.4·R)/(1.4·R), e the position centred on its sequence.
 */
export interface RopeOptions {
  /**
   * A rotation method of the core's table (a row of names.positionMethods of kind 'rotation'):
   * its pairs and options (base, scaleBase) are the starting point, the other fields override.
   */
  method?: string;
  /** 'neox' pairs (x[i], x[i+R/2]) (default); 'gptj' pairs (x[2i], x[2i+1]). */
  style?: 'neox' | 'gptj';
  /** θ_i = base^(-2i/R). Default 10000. */
  base?: number;
  /** Rotate the first R = D·fraction dims (R even), pass the rest through. Default 1. */
  rotaryFraction?: number;
  /** Long-context scaling, as in each paper and the Hugging Face `rope_type` code. Default 'none'. */
  scaling?: 'none' | 'linear' | 'ntk' | 'dynamic' | 'yarn' | 'llama3';
  /** Scaling factor f >= 1. Default 1. */
  factor?: number;
  /** N, the trained context length: required by 'dynamic', 'yarn' and 'llama3'. */
  originalLength?: number;
  /** llama3 low_freq_factor. Default 1. */
  lowFreqFactor?: number;
  /** llama3 high_freq_factor. Default 4. */
  highFreqFactor?: number;
  /** yarn beta_fast. Default 32. */
  betaFast?: number;
  /** yarn beta_slow. Default 1. */
  betaSlow?: number;
  /** The decay's positions per unit of its exponent (> 0), or 0 for none. Default 0, or the method's. */
  scaleBase?: number;
  /** p-RoPE: the fraction of the highest frequencies kept, the rest set to 0 (0..1). Default 1, or the method's (p-rope: 0.75). */
  keepFraction?: number;
}

/** KERPLE's per-head parameters (Chi et al. 2022): every head's r1 and r2 (> 0), or 0/absent for each head's drawn from the seed (U(0, 2), U(0, 1)). */
export interface KerpleOptions {
  r1?: number;
  r2?: number;
}

/** T5 relative-position buckets (relative.hpp). */
export interface T5Options {
  /** Separate buckets for keys before and after the query (encoder). Default false (decoder). */
  bidirectional?: boolean;
  /** Number of buckets. Default 32. */
  numBuckets?: number;
  /** Distance where the logarithmic buckets end. Default 128. */
  maxDistance?: number;
}

/**
 * 'none' | 'causal' (key j hidden when j > i + offset) | 'window:W' or { window: W } (causal,
 * and j hidden when (i + offset) − j >= W). Query i sits at position i + offset, key j at j:
 * offset 0 (the default) aligns the first query with the first key; Lk − Lq aligns the last
 * query with the last key (new queries after a cache). The rule is the core's one function
 * (cpp/include/poslab/layers/mask.hpp), shared by attention, attentionMask and the CUDA kernels.
 */
export type Mask = 'none' | 'causal' | `window:${number}` | { window: number };

/** (Lk,), nonzero / true = padding key, hidden from every query. */
export type KeyPadding = Uint8Array | boolean[] | number[];

export interface AttentionOptions {
  /** Default 'none'. */
  mask?: Mask;
  /** Query i sits at position i + offset (see Mask). Any integer in [−2^30, 2^30]. Default 0. */
  offset?: number;
  /** Score scale. Default 1/√d. */
  scale?: number;
  keyPadding?: KeyPadding;
  /** Added to the scaled scores: (H, Lq, Lk) or (Lq, Lk); −Infinity hides a key. */
  bias?: TensorInput;
  /** Also return the (H, Lq, Lk) weights. Default true. */
  returnWeights?: boolean;
}

export interface MultiHeadOptions {
  /** H; the model width D of x must be divisible by it. */
  heads: number;
  /** Seed of the N(0, 1/D) projections (random_multihead_weights). Default 0. */
  seed?: number;
  mask?: Mask;
  keyPadding?: KeyPadding;
  /**
   * Extra hidden cells, (L, L) row-major (L·L entries): nonzero / true hides key j from query i
   * in every head, on top of mask and keyPadding (they reach the scores as −∞). Default none.
   */
  customMask?: Uint8Array | boolean[] | number[];
  /**
   * Rotate Q and K per head at positions 0..L−1 ({ method } for any rotation method of the
   * table; a decaying one scales Q as queries, K as keys). Default false.
   */
  rope?: false | true | RopeOptions;
  /** Position bias added to the scores. Default 'none'. */
  bias?: 'none' | 'alibi' | 't5' | 'kerple';
  /** Bucket options when bias is 't5' (core defaults: unidirectional, 32 buckets, 128). */
  t5?: T5Options;
  /** Seed of the (numBuckets, H) T5 bias table. Default 0. */
  t5Seed?: number;
  /** KERPLE's r1, r2 when bias is 'kerple'. */
  kerple?: KerpleOptions;
  /** Seed of KERPLE's per-head r1, r2. Default 0. */
  kerpleSeed?: number;
  /** Default 1/√d, d = D/H. */
  scale?: number;
}

/** The result of multiHeadAttention: every stage of one forward pass. */
export interface MultiHeadResult {
  /** (L, D), after the output projection. */
  output: Tensor;
  /** (H, L, L) softmax weights; a row that sees no key is all zeros. */
  weights: Tensor;
  /**
   * (H, L, L) pre-softmax scores: q·kᵀ·scale + bias, exactly what the softmax took; −Infinity
   * where the key is hidden (mask, keyPadding, customMask, or a −∞ bias).
   */
  scores: Tensor;
  /** (H, L, d) per head, q and k after the rotation. */
  q: Tensor;
  k: Tensor;
  v: Tensor;
  /** (H, L, d) each head's output, weights · v, before the heads are merged and projected. */
  heads: Tensor;
  /** (H, L, L) the position bias added to the scores (ALiBi or T5); absent when bias is 'none'. */
  bias?: Tensor;
}

/** The core's name lists (one table per enum in the C++ core), in the order the core lists them. */
export interface Names {
  /** RopeOptions.style: ['neox', 'gptj']. */
  readonly ropeStyles: readonly string[];
  /** RopeOptions.scaling: ['none', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3']. */
  readonly ropeScalings: readonly string[];
  /** Mask kinds: ['none', 'causal', 'window'] ('window' is written 'window:W'). */
  readonly masks: readonly string[];
  /** similarity metric: ['cosine', 'dot']. */
  readonly metrics: readonly string[];
  /** sinusoidal layout: ['interleaved', 'concat']. */
  readonly layouts: readonly string[];
  /** multiHeadAttention bias: ['alibi', 't5', 'none']. */
  readonly positionBiases: readonly string[];
  /** GPT-2 position methods: ['learned', 'sinusoidal', 'rope', 'alibi', 'none'] ('none' = NoPE). */
  readonly gpt2Positions: readonly string[];
  /** The one table of position methods the lists above are cut from, in its order. */
  readonly positionMethods: readonly PositionMethodInfo[];
}

/** One row of the core's position-method table (cpp/include/poslab/positions/position_methods.hpp). */
export interface PositionMethodInfo {
  readonly name: string;
  /** Other names the parsers accept ('nope' for 'none'). */
  readonly aliases: readonly string[];
  readonly kind: 'added table' | 'learned table' | 'relative table' | 'rotation' | 'score bias' | 'none';
  /** Where it runs: the core, multi-head attention's bias, the trainer, CUDA, GPT-2's swap. */
  readonly support: Readonly<{ core: boolean; bias: boolean; trainer: boolean; cuda: boolean; gpt2: boolean }>;
  readonly options: readonly Readonly<{ name: string; default: number; min: number; max: number; about: string }>[];
  readonly summary: string;
  /** A rotation's pairs (RopeOptions.style); absent for the other kinds. */
  readonly pairs?: 'neox' | 'gptj';
}

/** The core's defaults, under the option names they fill (frozen). */
export interface Defaults {
  /** sinusoidal, wavelengths and offsetMatrix base: 10000. */
  readonly base: number;
  /** sinusoidal layout: 'interleaved'. */
  readonly layout: string;
  /** learned and shaw std: 0.02. */
  readonly std: number;
  /** layerNorm and rmsNorm eps: 1e-5. */
  readonly eps: number;
  /** similarity metric: 'cosine'. */
  readonly metric: string;
  /** attention mask: 'none'. */
  readonly mask: string;
  /** attention mask offset: 0. */
  readonly offset: number;
  /** multiHeadAttention heads: 1. */
  readonly heads: number;
  /** multiHeadAttention position bias: 'none'. */
  readonly bias: string;
  /** every seed: 0. */
  readonly seed: number;
  /** RopeOptions: style 'neox', scaling 'none', base 10000, rotaryFraction 1, factor 1,
   * originalLength 0 (unset), lowFreqFactor 1, highFreqFactor 4, betaFast 32, betaSlow 1. */
  readonly rope: Readonly<Required<Omit<RopeOptions, 'method' | 'scaleBase'>>> & { readonly originalLength: number };
  /** T5Options: bidirectional false, numBuckets 32, maxDistance 128. */
  readonly t5: Readonly<Required<T5Options>>;
}

export interface RopeFrequencies {
  /** θ_i of the effective (scaled) rotation, (R/2,), in double as the core computes them (a
   * ratio of two curves stays exact; p·θ at p = 65 536 needs θ to ~1.5e-10). */
  invFreq: Tensor<Float64Array>;
  /** Multiplies cos and sin (YaRN's mscale; 1 otherwise). */
  attentionFactor: number;
  /** R. */
  rotaryDim: number;
}

export interface PosLab {
  /** The per-tensor element cap of this build (2^26 in wasm). */
  readonly maxElements: number;
  /** The core's name lists: what each string option accepts. */
  readonly names: Names;
  /** The core's defaults: what an omitted option means. */
  readonly defaults: Defaults;

  /** Sinusoidal table PE (L, D) for positions offset..offset+L−1 [SIMD fast path]. D even. */
  sinusoidal(options: {
    length: number;
    dim: number;
    base?: number;
    layout?: 'interleaved' | 'concat';
    offset?: number;
  }): Tensor;
  /** Learned absolute table (L, D): seeded N(0, std²), the same on every platform. */
  learned(options: { length: number; dim: number; seed?: number; std?: number }): Tensor;
  /** Shaw indices clip(j − i, −K, K) + K, int32 (Lq, Lk). */
  shawIndices(options: { queryLength: number; keyLength: number; maxDistance: number }): Tensor<Int32Array>;
  /**
   * Shaw relative embeddings (Lq, Lk, D) from a seeded (2K+1, D) table. `std` must be 0.02
   * (the core's shaw_embeddings has no std parameter yet).
   */
  shaw(options: {
    queryLength: number;
    keyLength: number;
    maxDistance: number;
    dim: number;
    seed?: number;
    std?: number;
  }): Tensor;
  /** T5 buckets of key − query, int32 (Lq, Lk). */
  t5Buckets(options: { queryLength: number; keyLength: number } & T5Options): Tensor<Int32Array>;
  /** T5 attention bias (H, Lq, Lk) from a seeded (numBuckets, H) table. */
  t5Bias(options: { heads: number; queryLength: number; keyLength: number; seed?: number } & T5Options): Tensor;
  /** ALiBi head slopes m_h, (H,). */
  alibiSlopes(options: { heads: number }): Tensor;
  /** ALiBi bias −m_h·|i − j|, (H, Lq, Lk). */
  alibi(options: { heads: number; queryLength: number; keyLength: number }): Tensor;
  /** KERPLE bias −r1_h·log(1 + r2_h·|i + offset − j|), (H, Lq, Lk). */
  kerple(
    options: { heads: number; queryLength: number; keyLength: number; offset?: number; seed?: number } & KerpleOptions,
  ): Tensor;

  /** θ_i and mscale of a RoPE configuration; totalLength S = offset + L matters for 'dynamic' only. */
  ropeFrequencies(options: { headDim: number; totalLength?: number } & RopeOptions): RopeFrequencies;
  /**
   * Rotates x (L, D) or (H, L, D) at positions offset..offset+L−1 of a sequence of offset + L
   * [SIMD fast path]. A decaying rotation scales x as queries (default) or, with key, as keys;
   * key changes nothing without a decay.
   */
  rope(x: TensorInput, options?: { offset?: number; key?: boolean } & RopeOptions): Tensor;
  /** RoFormer's upper bound of |q·k| vs relative distance 0..maxDistance, (M+1,). */
  ropeDecay(options: { headDim: number; maxDistance: number } & RopeOptions): Tensor;
  /** Wavelength 2π/θ_i of each rotated pair, (R/2,). */
  ropeWavelengths(options: { headDim: number; totalLength?: number } & RopeOptions): Tensor;
  /** Wavelength 2π·base^(2i/D) of each sinusoidal pair, (D/2,). */
  wavelengths(options: { dim: number; base?: number }): Tensor;

  /**
   * softmax(Q Kᵀ·scale + bias + mask) V [SIMD fast path]. q (H, Lq, d) or (Lq, d), k (H, Lk, d),
   * v (H, Lk, dv). A query that sees no key gets zero weights and a zero output.
   */
  attention(
    q: TensorInput,
    k: TensorInput,
    v: TensorInput,
    options?: AttentionOptions,
  ): { output: Tensor; weights?: Tensor };
  /**
   * The (Lq, Lk) mask attention applies, as bytes: data[i·Lk + j] = 1 when key j is hidden from
   * query i (by mask, offset or keyPadding), else 0. The core's own rule, for drawing it.
   */
  attentionMask(options: {
    /** Lq. */
    queries: number;
    /** Lk. */
    keys: number;
    /** Default 'none'. */
    mask?: Mask;
    keyPadding?: KeyPadding;
    /** Default 0 (see Mask). */
    offset?: number;
  }): Tensor<Uint8Array>;
  /**
   * Multi-head self-attention of x (L, D) with seeded projections, in one call: output,
   * weights, pre-softmax scores, per-head q, k, v (after the rotation) and the position bias.
   */
  multiHeadAttention(x: TensorInput, options: MultiHeadOptions): MultiHeadResult;

  /** (x − mean)/√(var + eps)·γ + β over the last axis; γ, β (D,). */
  layerNorm(
    x: TensorInput,
    options?: {
      eps?: number;
      gamma?: TensorInput | Float32Array | number[];
      beta?: TensorInput | Float32Array | number[];
    },
  ): Tensor;
  /** x/√(mean(x²) + eps)·γ over the last axis. */
  rmsNorm(x: TensorInput, options?: { eps?: number; gamma?: TensorInput | Float32Array | number[] }): Tensor;
  /** S[i, j] = sim(x_i, x_j) for x (L, D): (L, L). Cosine of a zero row is 0. */
  similarity(x: TensorInput, options?: { metric?: 'cosine' | 'dot' }): Tensor;
  /** Mean of S[i, j] over |i − j| = k, k in [0, L): (L,). */
  similarityByOffset(x: TensorInput, options?: { metric?: 'cosine' | 'dot' }): Tensor;
  /** M_k (D, D) with PE(p+k) = M_k·PE(p) for the interleaved table; k may be negative. */
  offsetMatrix(options: { dim: number; k: number; base?: number }): Tensor;

  /** The instruction set of the fast paths: 'WASM' (simd build), 'EMU128' or 'SCALAR' (scalar build). */
  simdTarget(): string;
  /** Current size of the WebAssembly memory in bytes (grows up to 2 GiB, never shrinks). */
  heapBytes(): number;
  /**
   * Bytes the module's malloc has handed out and not had back (mallinfo().uordblks): back to
   * the same value after any call that keeps nothing, so a leak shows here, unlike heapBytes.
   */
  liveHeapBytes(): number;
}
