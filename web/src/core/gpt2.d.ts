// Types of the GPT-2 API (gpt2.js), from the poslab-lm module. Shapes: T tokens, V vocabulary,
// H heads, N layers. Configs use Hugging Face's config.json keys.
import type { CreateOptions, Tensor } from './poslab';
import type { LensMap, LensMapOptions, LensOptions, LensReport } from './lens';

export interface Gpt2ConfigInput {
  vocab_size?: number;
  n_positions?: number;
  n_embd?: number;
  n_layer?: number;
  n_head?: number;
  layer_norm_epsilon?: number;
  [other: string]: unknown;
}

/** Parameters per component, weights and biases/gains together. */
export interface Gpt2ParameterCounts {
  wte: number;
  wpe: number;
  perBlock: {
    ln_1: number;
    attn_c_attn: number;
    attn_c_proj: number;
    ln_2: number;
    mlp_c_fc: number;
    mlp_c_proj: number;
  };
  block: number;
  blocks: number;
  ln_f: number;
  total: number;
}

export interface Gpt2Config {
  vocab_size: number;
  n_positions: number;
  n_embd: number;
  n_layer: number;
  n_head: number;
  layer_norm_epsilon: number;
  parameters: Gpt2ParameterCounts;
}

/** A preset, or config.json as an object or its text; neither: small (random init) / read off the checkpoint (loader). */
export interface Gpt2ConfigChoice {
  preset?: 'small' | 'medium';
  config?: Gpt2ConfigInput | string;
}

/** learned: as trained (wpe). The others replace wpe for exploration; results say so. */
export type Gpt2Position = 'learned' | 'sinusoidal' | 'rope' | 'alibi' | 'none';

export interface Gpt2LayerTrace {
  attention: Tensor; // (H, T, T) causal softmax weights
  ln1Mean: Tensor; // (T,)
  ln1Variance: Tensor; // (T,) biased, before eps
  ln2Mean: Tensor;
  ln2Variance: Tensor;
  residAttnNorm: Tensor; // (T,) ‖residual‖₂ after attention
  residMlpNorm: Tensor; // (T,) after the MLP
}

export interface Gpt2Result {
  logits: Tensor; // (T, V)
  layers: Gpt2LayerTrace[]; // N entries, empty with trace: false
  topIds: Int32Array; // (k,) next tokens after the last position, most likely first
  topProbs: Float32Array; // (k,) their probabilities
  position: Gpt2Position;
  positionNote: string;
  precision: Precision; // the arithmetic that computed it
}

/**
 * 'float' (the default): float32 SIMD products, logits within 1e-4 of the largest |logit| and
 * attention within 1e-5 of 'double', the reference that accumulates every product in double.
 */
export type Precision = 'float' | 'double';

/** Weights in the wasm heap until delete(). */
export interface Gpt2Model {
  config: Gpt2Config;
  bytes: number; // weight memory
  dtype: 'F32' | 'F16' | 'BF16' | 'mixed'; // as stored in the checkpoint (16-bit stays 16-bit)
  forward(
    tokens: number[] | Int32Array,
    options?: { position?: Gpt2Position; topK?: number; trace?: boolean; precision?: Precision },
  ): Gpt2Result;
  /** The position lens on tokens: lens.json's report (docs/lens.md), one layer held at a time. */
  lens(tokens: number[] | Int32Array, options?: LensOptions): LensReport;
  /** One head's attention map on tokens (one traced pass): the lens's example map. */
  lensMap(tokens: number[] | Int32Array, options?: LensMapOptions): LensMap;
  delete(): void;
}

/** A checkpoint fed chunk by chunk (the bytes after the header, in order). */
export interface Gpt2Loading {
  tensors: { name: string; dtype: 'F32' | 'F16' | 'BF16'; shape: number[]; begin: number; end: number }[];
  config: Gpt2Config;
  expected: number; // data bytes in all
  received(): number;
  append(chunk: Uint8Array): void;
  /** A single file has no next file: throws. (GPT-2 checkpoints ship whole.) */
  nextFile(): void;
  /** Checks completeness and finiteness (errors name the tensor) and returns the model. */
  finish(): Gpt2Model;
  delete(): void;
}

export interface Gpt2Lab {
  /** The position methods forward() accepts, from the core: learned (the default, as trained) first. */
  readonly positions: readonly Gpt2Position[];
  /** Bytes the module's malloc has handed out and not had back: a model counts until delete(). */
  liveHeapBytes(): number;
  gpt2Config(choice?: Gpt2ConfigChoice): Gpt2Config;
  gpt2Random(choice?: Gpt2ConfigChoice & { seed?: number }): Gpt2Model;
  /** N, the header's JSON length, from the file's first 8 bytes. */
  safetensorsHeaderLength(first8: Uint8Array, fileSize: number, name?: string): number;
  /** header: the file's first 8 + N bytes. Checks every name, shape and dtype before allocating. */
  gpt2Loader(options: Gpt2ConfigChoice & { header: Uint8Array; fileSize: number; name?: string }): Gpt2Loading;
}

/** The language-model module's API: GPT-2's (Gpt2Lab) and GPT-NeoX's together (gpt-neox.d.ts). */
export function createGpt2Lab(options?: CreateOptions): Promise<import('./gpt-neox').LmLab>;
export function bindGpt2(module: object): Gpt2Lab;
