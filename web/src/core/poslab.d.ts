// Types of the PosLab JavaScript API (poslab.js). Shapes use the core's short names:
// L positions, D width, H heads, d head width, Lq/Lk query/key lengths, R rotary dims.

/** Thrown for every bad input; the message is the C++ core's (as the CLI prints it) or the wrapper's. */
export class PosLabError extends Error {
  name: 'PosLabError';
}

/** A dense row-major tensor passed in. `data.length` must equal the product of `shape`. */
export interface TensorInput {
  data: Float32Array | number[];
  shape: number[];
}

/** A result: a fresh copy owned by JS, unaffected by later calls or wasm memory growth. */
export interface Tensor<T extends Float32Array | Int32Array = Float32Array> {
  data: T;
  shape: number[];
}

export interface CreateOptions {
  /** 'simd' (SIMD128, default) or 'scalar' (same sources, no SIMD: the benchmark baseline). */
  variant?: 'simd' | 'scalar';
  /**
   * The .wasm bytes. Required in Node (Emscripten 3.1.6 cannot fetch a file path there): pass
   * fs.readFileSync('build/wasm/<variant>/poslab.wasm'). In the browser the module fetches
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

/** RoPE configuration (rope.hpp). All optional; defaults are the core's. */
export interface RopeOptions {
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

/** 'none' | 'causal' (key j hidden when j > i) | 'window:W' or { window: W } (causal and i − j < W). */
export type Mask = 'none' | 'causal' | `window:${number}` | { window: number };

/** (Lk,), nonzero / true = padding key, hidden from every query. */
export type KeyPadding = Uint8Array | boolean[] | number[];

export interface AttentionOptions {
  /** Default 'none'. */
  mask?: Mask;
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
  /** Rotate Q and K per head at positions 0..L−1. Default false. */
  rope?: false | true | RopeOptions;
  /** Position bias added to the scores. Default 'none'. */
  bias?: 'none' | 'alibi' | 't5';
  /** Bucket options when bias is 't5' (core defaults: unidirectional, 32 buckets, 128). */
  t5?: T5Options;
  /** Seed of the (numBuckets, H) T5 bias table. Default 0. */
  t5Seed?: number;
  /** Default 1/√d, d = D/H. */
  scale?: number;
}

export interface RopeFrequencies {
  /** θ_i of the effective (scaled) rotation, (R/2,). */
  invFreq: Tensor;
  /** Multiplies cos and sin (YaRN's mscale; 1 otherwise). */
  attentionFactor: number;
  /** R. */
  rotaryDim: number;
}

export interface PosLab {
  /** The per-tensor element cap of this build (2^26 in wasm). */
  readonly maxElements: number;

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

  /** θ_i and mscale of a RoPE configuration; totalLength S = offset + L matters for 'dynamic' only. */
  ropeFrequencies(options: { headDim: number; totalLength?: number } & RopeOptions): RopeFrequencies;
  /** Rotates x (L, D) or (H, L, D) at positions offset..offset+L−1 [SIMD fast path]. */
  rope(x: TensorInput, options?: { offset?: number } & RopeOptions): Tensor;
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
  /** Multi-head self-attention of x (L, D) with seeded projections; q, k, v per head after RoPE. */
  multiHeadAttention(
    x: TensorInput,
    options: MultiHeadOptions,
  ): { output: Tensor; weights: Tensor; q: Tensor; k: Tensor; v: Tensor; bias?: Tensor };

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
}
