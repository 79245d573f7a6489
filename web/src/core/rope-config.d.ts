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

/**
 * One row of the model-type table (cpp/include/poslab/models/model_types.hpp): the defaults a
 * config.json model_type's Hugging Face configuration class gives, the keys it spells its own
 * way, and which layers slide. Sizes: 0 required or computed, -1 not read (always computed).
 */
export interface ModelTypeRow {
  name: string;
  /** The multimodal model_type whose text_config this is ('' for none). */
  wrapper: string;
  note: string;
  sizes: {
    context: number;
    kvHeads: number;
    headDim: number;
    hiddenSize: number;
    heads: number;
    layers: number;
    tieWordEmbeddings: boolean;
    normEps: number;
  };
  rotation: {
    theta: number;
    /** The sliding layers' own base (rope_local_base_freq); 0: one base for every layer. */
    localBase: number;
    fraction: number;
    thetaKey: string;
    thetaAlias: string;
    fractionKey: string;
    fractionAlias: string;
  };
  layers: {
    /** The window when sliding_window is absent; 0: none. */
    slidingWindow: number;
    sliding: 'none' | 'every' | 'from' | 'pattern' | 'nope';
    slidingCount: number;
    slidingCountKey: string;
    slidingCountAlias: string;
    useSlidingWindow: 'not_read' | 'off' | 'on';
    layerTypes: boolean;
    noRopeLayers: boolean;
    nopeInterval: number;
    attentionChunk: number;
  };
}

export interface RopeConfigLab {
  /** config.json's text (or a multimodal one's text_config) → its position scheme. */
  ropeConfig(text: string, name?: string): RopeConfigReport;
  /** The model-type table; absent from the threaded build (the page reads state/model-types.js). */
  modelTypes?(): ModelTypeRow[];
}

export function bindRopeConfig(module: object): RopeConfigLab;
