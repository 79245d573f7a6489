// Types of the length-generalisation lab's JS API (train.js) over the training module.
import type { LensMap, LensMapOptions, LensOptions, LensReport } from './lens';
import type { SurgeryOptions, SurgeryReport } from './surgery';

export interface TrainConfig {
  /** text: a byte-level language model on `text` (Press et al. 2022), scored by context. */
  task?: 'copy' | 'reverse' | 'sort' | 'addition' | 'text';
  /** A method the trainer has: one of names.positions (the core's table, support.trainer). */
  position?: string;
  /** MAX: train on sorted random positions from [0, MAX) (Ruoss et al. 2023); 0: off. */
  randomizedPositions?: number;
  /** Addition only: digits of the same significance share a position (Cho et al. 2024), from a start drawn in [1, MAX − digits − 2] (BOS and EOS at 0); 0 off. */
  coupledPositions?: number;
  /** Addition only: operands of fewer than trainLen digits are zero-padded to trainLen (one layout for lengths 1..N, Lee et al. 2023); longer ones as drawn. */
  padOperands?: boolean;
  /** Addition only: K index hints (Zhou et al. 2024), each digit after a hint symbol naming its significance, from a start drawn in training; K ≥ the most digits + 1; 0 off. */
  indexHints?: number;
  trainLen?: number;
  /** Evaluated lengths 1..testLen (at least 1); left out, 4·trainLen. */
  testLen?: number;
  layers?: number;
  width?: number;
  heads?: number;
  /** Sequences (text: windows) per step; left out, the task's (defaults.batchByTask). */
  batch?: number;
  /** Left out, the task's (defaults.stepsByTask). */
  steps?: number;
  lr?: number;
  warmupSteps?: number;
  seed?: number;
  /** x = embedScale·wte[token]; left out, the method's (defaults.embedScaleByMethod). */
  embedScale?: number;
  /** CoPE's npos_max: its contextual positions are clipped at nposMax − 1; left out, the table's (64). */
  nposMax?: number;
  /** Abacus's largest training offset (the authors' max_k): each sequence's digit places move by k in [0, abacusMaxOffset]; left out, the table's (99). */
  abacusMaxOffset?: number;
  /** Attention sinks (gpt-oss): one learned logit per layer and head in every softmax's denominator, with any method. */
  sinks?: boolean;
  /** A rotation method's NoPE layers (SmolLM3, Llama 4): layers K, 2K, … (1-based) do not rotate; 0: off. */
  nopeEvery?: number;
  /** Llama 4's attention temperature on those layers: queries times log(⌊(p + 1) / attnFloorScale⌋ + 1)·attnScale + 1; 0: off. */
  attnFloorScale?: number;
  attnScale?: number;
  evalPositions?: 'index' | 'random';
  evalExamples?: number;
  /** The text task's bytes: the first 90% train, the last 10% are held out. */
  text?: Uint8Array;
}

export interface Evaluation {
  /** Exact match by length ('1'..'M'). */
  accuracyByLength: Record<string, number>;
  /** Per length, the accuracy at each answer position (y then EOS). */
  tokenAccuracyByPosition: Record<string, Float64Array>;
  evalPositions: 'index' | 'random';
  /** The text task's held-out loss in nats per byte by context; null past a learned table. */
  lossByContext?: { context: number; loss: number | null }[];
}

export interface AttentionExample {
  tokens: Int32Array;
  positions: Int32Array;
  /** The argmax at each position (the prediction of the next token). */
  predictions: Int32Array;
  answerStart: number;
  /** (nLayer, nHead, T, T), row-major. */
  maps: Float32Array;
  shape: [number, number, number, number];
  /**
   * FIRE models only: the bias FIRE added to this example's scores, (nLayer, nHead, T, T) like
   * maps: bias(i, j) = f(ψ(p_i − p_j) / ψ(max(L, p_i + 1))) for keys j ≤ i, 0 above the diagonal.
   */
  fireBias?: Float32Array;
}

export interface TrainRun {
  readonly config: Required<TrainConfig>;
  readonly modelConfig: Record<string, number | string>;
  readonly vocabulary: { symbols: number; bos: number; sep: number; eos: number; pad: number; size: number };
  readonly stepsDone: number;
  readonly tokensSeen: number;
  readonly flopsSpent: number;
  readonly lossCurve: [number, number][];
  /** Up to `count` (default 1) more steps, never past config.steps: their losses. */
  step(count?: number): Float64Array;
  evaluate(): Evaluation;
  attentionExample(length: number, index?: number): AttentionExample;
  /** result.json (snake_case keys, as `poslab train -o` writes it). */
  result(wallTimeS?: number): Record<string, unknown>;
  /** The weights as .safetensors bytes, the config in __metadata__. */
  checkpoint(): Uint8Array;
  /** The `poslab train --steps 0 --dump` files, name → bytes. */
  dump(): Record<string, Uint8Array>;
  dispose(): void;
}

export interface TrainLab {
  /** Copy's and a 4-scale method's defaults, and the core's table behind steps, batch and embedScale. */
  readonly defaults: Required<TrainConfig> & {
    stepsByTask: Record<string, number>;
    batchByTask: Record<string, number>;
    embedScaleByMethod: Record<string, number>;
  };
  readonly names: { tasks: string[]; positions: string[]; evalPositions: string[] };
  createRun(config?: TrainConfig): TrainRun;
  /**
   * A text model's (checkpoint: TrainRun.checkpoint() of a text run, F32 or F16) mean loss in
   * nats per byte at each position over every non-overlapping window of `context` bytes of
   * `text` (at most maxWindows, default 256), positions 0..context−1, RoPE scaled by `scaling`
   * at `factor` with original length its trained context.
   */
  textLoss(
    checkpoint: Uint8Array,
    text: Uint8Array,
    options?: {
      context?: number;
      scaling?: 'none' | 'linear' | 'ntk' | 'dynamic' | 'yarn' | 'llama3';
      factor?: number;
      maxWindows?: number;
    },
  ): { losses: Float64Array; trainLen: number; position: string };
  /**
   * The position lens on a lab checkpoint (TrainRun.checkpoint(), F32 or F16) and token ids (a
   * text model's: the text's bytes, as a Uint8Array): lens.json's report (docs/lens.md). Float
   * only; options.rope (models of a rotation method): a scaling, its original length the
   * trained context; options.surgery: position surgery inside every pass (a model without a
   * rotation takes ablateHeads only).
   */
  textLens(checkpoint: Uint8Array, tokens: number[] | Int32Array | Uint8Array, options?: LensOptions): LensReport;
  /** One head's attention map on a lab checkpoint (one traced pass), under options.surgery if given. */
  textLensMap(checkpoint: Uint8Array, tokens: number[] | Int32Array | Uint8Array, options?: LensMapOptions): LensMap;
  /**
   * A position-surgery sweep on a lab checkpoint and token ids (a text model's: the text's
   * bytes), as `poslab surgery --weights <checkpoint>`: surgery.json's report (docs/surgery.md).
   * Float only; N is the checkpoint's training length. A model without a rotation takes the
   * heads sweep (ablation) and single ablations only.
   */
  textSurgery(
    checkpoint: Uint8Array,
    tokens: number[] | Int32Array | Uint8Array,
    options: SurgeryOptions,
  ): SurgeryReport;
}

export function createTrainLab(config?: {
  variant?: 'simd' | 'scalar';
  wasmBinary?: Uint8Array | ArrayBuffer;
  factory?: (options: object) => Promise<unknown>;
}): Promise<TrainLab>;
export function bindTrain(module: unknown): TrainLab;
