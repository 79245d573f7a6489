// Types of the RoPE inspector (rope-config.js), in the language-model module's lab: what
// `poslab rope-config` writes, with camelCase keys.

/** One RoPE base as the config sets it (Gemma 3 has two: "global" and "local"). */
export interface RopeScheme {
  name: string;
  base: number;
  scaling: 'none' | 'linear' | 'dynamic' | 'yarn' | 'llama3' | 'longrope';
  factor: number;
  rotaryDim: number;
  /** N: the context the unscaled rotation was trained on, and the key it came from. */
  trainedContext: number;
  trainedContextFrom: string;
  /** N · factor (longrope: max_position_embeddings). */
  reaches: number;
  /** The largest query–key distance its layers see (window − 1 on sliding/chunked layers). */
  maxDistance: number;
  attentionFactor: number;
  /** Pairs 0…k−1 whose unscaled wavelength fits in N: they complete a rotation in context. */
  rotatingPairs: number;
  invFreq: number[];
  invFreqScaled: number[];
  wavelength: number[];
  wavelengthScaled: number[];
  /** longrope only: the long factors, used past N. */
  invFreqLong?: number[];
  wavelengthLong?: number[];
}

export interface RopeLayer {
  attention: 'full' | 'sliding' | 'chunked' | string;
  window: number;
  /** Index into schemes; null for a NoPE layer. */
  scheme: number | null;
}

export interface RopeConfigReport {
  modelType: string;
  textConfig: boolean;
  headDim: number;
  heads: number;
  kvHeads: number;
  maxPositionEmbeddings: number;
  schemes: RopeScheme[];
  layers: RopeLayer[];
  notes: string[];
  ignoredKeys: string[];
}

export interface RopeConfigLab {
  /** config.json's text (or a multimodal one's text_config) → its position scheme. */
  ropeConfig(text: string, name?: string): RopeConfigReport;
}

export function bindRopeConfig(module: object): RopeConfigLab;
