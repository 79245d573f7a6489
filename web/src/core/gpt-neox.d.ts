// Types of the GPT-NeoX (Pythia) API (gpt-neox.js), in the same lab as GPT-2's (poslab-lm
// module). Shapes: T tokens, V vocabulary, H heads, N layers. Configs use Hugging Face's
// config.json keys.
import type { Tensor } from './poslab';
import type { Gpt2Lab, Gpt2LayerTrace, Precision } from './gpt2';
import type { LensMap, LensMapOptions, LensOptions, LensReport } from './lens';
import type { LlamaLab } from './llama';
import type { RopeConfigLab } from './rope-config';
import type { Surgery, SurgeryOptions, SurgeryReport } from './surgery';

export interface GptNeoxConfigInput {
  vocab_size: number;
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  intermediate_size: number;
  max_position_embeddings?: number;
  rotary_pct?: number;
  rotary_emb_base?: number;
  layer_norm_eps?: number;
  use_parallel_residual?: boolean;
  rope_scaling?: { type?: string; rope_type?: string; factor?: number; [other: string]: unknown };
  [other: string]: unknown;
}

export interface GptNeoxConfig {
  vocab_size: number;
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  intermediate_size: number;
  max_position_embeddings: number; // the trained context
  rotary_pct: number;
  rotary_emb_base: number;
  layer_norm_eps: number;
  use_parallel_residual: boolean;
  /** The config's own rotation (rope_scaling, or 'none'); rotaryDim = int(d·rotary_pct). */
  rope: { scaling: RopeScalingName; factor: number; originalLength: number; rotaryDim: number; base: number };
  parameters: number; // total
  json: string; // the config.json the core reads back to this config
}

/** A preset, or config.json as an object or its text: one of them is required. */
export interface GptNeoxConfigChoice {
  preset?: 'pythia-70m' | 'pythia-160m';
  config?: GptNeoxConfigInput | string;
}

export type RopeScalingName = 'none' | 'linear' | 'ntk' | 'dynamic' | 'yarn' | 'llama3';

/**
 * A long-context scaling in place of the config's rope_scaling (as `poslab lm --rope-*`): the
 * base, pairs and rotated fraction stay the config's; originalLength defaults to
 * max_position_embeddings (dynamic scales by the whole sequence length).
 */
export interface GptNeoxRope {
  scaling: RopeScalingName;
  factor?: number; // f >= 1 (default 1)
  originalLength?: number;
  lowFreqFactor?: number; // llama3 (1)
  highFreqFactor?: number; // llama3 (4)
  betaFast?: number; // yarn (32)
  betaSlow?: number; // yarn (1)
}

export interface GptNeoxForwardOptions {
  precision?: Precision; // 'float' (default)
  trace?: boolean; // per-layer attention (H, T, T) and statistics; default false
  topK?: number; // default 10
  logits?: boolean; // the (T, V) logits; default true. Off for long T: (T, V) passes the element cap at T > 5336 (V = 50 304)
  lossByPosition?: boolean; // (T−1,) next-token losses reduced a vocabulary block at a time; default false. Neither: only the top-k after the last position (one row of the head)
  rope?: GptNeoxRope;
  /** Position surgery inside the pass (surgery.d.ts), as `poslab lm --nope-heads …`. */
  surgery?: Surgery;
}

export interface GptNeoxResult {
  logits?: Tensor; // (T, V) when options.logits
  losses?: Tensor; // (T−1,) when options.lossByPosition: −log p(token t+1 | tokens ≤ t)
  layers: Gpt2LayerTrace[]; // N entries with trace (residAttnNorm: after attention when sequential)
  topIds: Int32Array; // (k,) next tokens after the last position, most likely first
  topProbs: Float32Array;
  precision: Precision;
  rope: { scaling: RopeScalingName; factor: number; originalLength: number }; // the rotation used
}

/** A RoPE model's weights in the wasm heap until delete() (GPT-NeoX's, the Llama family's). */
export interface RopeLmModel<Architecture extends string, Config> {
  architecture: Architecture;
  config: Config;
  bytes: number;
  dtype: 'F32' | 'F16' | 'BF16' | 'mixed'; // as stored in the checkpoint, and held so
  forward(tokens: number[] | Int32Array, options?: GptNeoxForwardOptions): GptNeoxResult;
  /** The position lens on tokens: lens.json's report (docs/lens.md), one layer held at a time. */
  lens(tokens: number[] | Int32Array, options?: LensOptions): LensReport;
  /** One head's attention map on tokens (one traced pass): the lens's example map. */
  lensMap(tokens: number[] | Int32Array, options?: LensMapOptions): LensMap;
  /**
   * A position-surgery sweep on tokens, as `poslab surgery`: surgery.json's report
   * (docs/surgery.md). The unmodified pass keeps each layer's input (up to 256 MiB), so an
   * intervention's pass starts at the first layer it changes.
   */
  surgery(tokens: number[] | Int32Array, options: SurgeryOptions): SurgeryReport;
  delete(): void;
}

/** One file of a sharded checkpoint, for <api>ShardedLoader: its name (as the index gives it), its first 8 + N bytes and its size. */
export interface ShardFile {
  name: string;
  header: Uint8Array;
  fileSize: number;
}

/** The options of <api>ShardedLoader: model.safetensors.index.json's text and every shard it names. */
export interface ShardedCheckpoint {
  index: string;
  /** The index's name in messages (default model.safetensors.index.json). */
  name?: string;
  shards: ShardFile[];
}

/**
 * A checkpoint fed chunk by chunk (the bytes after the header, in order). A sharded one: each
 * shard's bytes after its header, the shards in `shards` order, nextFile() between two.
 */
export interface RopeLmLoading<Model extends { config: unknown }> {
  /** A single file's tensors (absent for a sharded checkpoint). */
  tensors?: { name: string; dtype: string; shape: number[]; begin: number; end: number }[];
  /** A sharded checkpoint's shard names, in the order their bytes are appended. */
  shards?: string[];
  config: Model['config'];
  expected: number;
  received(): number;
  append(chunk: Uint8Array): void;
  /** The current shard is complete (else throws, naming the tensor): the next bytes are the next shard's. */
  nextFile(): void;
  /** Checks completeness and finiteness (errors name the tensor) and returns the model. */
  finish(): Model;
  delete(): void;
}

export type GptNeoxModel = RopeLmModel<'gpt_neox', GptNeoxConfig>;
export type GptNeoxLoading = RopeLmLoading<GptNeoxModel>;

export interface PoolProfile {
  batches: number;
  chunks: number;
  batchMs: number;
  slowestMs: number;
  callerWorkMs: number;
  workerWorkMs: number;
}

export interface GptNeoxLab {
  /** The scalings forward's rope.scaling accepts, from the core: 'none' first. */
  readonly ropeScalings: readonly RopeScalingName[];
  /** Size of the wasm heap in bytes (it only grows: the high-water mark). */
  wasmHeapBytes(): number;
  /**
   * Threads the float32 products and attention use, 1 to maxThreads(); the results are the
   * same bits whatever the count. Above 1 only in the threaded build (a cross-origin isolated
   * page), up to the workers it was started with + 1. Out of range: throws, field 'threads'.
   */
  setThreads(n: number): void;
  threads(): number;
  maxThreads(): number;
  /**
   * Where the thread pool's time went since resetPoolProfile(), in ms (base/threads.hpp's
   * PoolProfile): batches and their chunks, the caller's wall time in batches, the sum of each
   * batch's slowest chunk, and the caller's and the workers' own chunks. All zeros on one thread.
   */
  poolProfile(): PoolProfile;
  resetPoolProfile(): void;
  gptNeoxConfig(choice: GptNeoxConfigChoice): GptNeoxConfig;
  gptNeoxRandom(choice: GptNeoxConfigChoice & { seed?: number; dtype?: 'F32' | 'F16' }): GptNeoxModel;
  /** header: the file's first 8 + N bytes (safetensorsHeaderLength gives N); checked against the config before allocating. */
  gptNeoxLoader(options: GptNeoxConfigChoice & { header: Uint8Array; fileSize: number; name?: string }): GptNeoxLoading;
  /** Every shard's header checked against the index and the config before allocating. */
  gptNeoxShardedLoader(options: GptNeoxConfigChoice & ShardedCheckpoint): GptNeoxLoading;
  /** Which loader a checkpoint needs, from its tensor names (header: first 8 + N bytes). */
  architectureOf(header: Uint8Array, fileSize: number, name?: string): 'gpt2' | 'gpt_neox';
  /** config.json's model_type, null when absent. */
  architectureOfConfig(text: string, name?: string): 'gpt2' | 'gpt_neox' | null;
}

/** What createGpt2Lab returns: the language-model module's whole API. */
export type LmLab = Gpt2Lab & GptNeoxLab & LlamaLab & RopeConfigLab;

export function bindGptNeox(module: object): GptNeoxLab;
export function bindLm(module: object): LmLab;
