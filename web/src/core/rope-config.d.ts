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

/**
 * DeepSeek's multi-head latent attention: each head's query and key are qkNopeHeadDim unrotated
 * dims then qkRopeHeadDim rotated ones (the schemes' rotaryDim); keys and values from a
 * kvLoraRank latent, queries from a qLoraRank one (0: none). softmaxScale = qkHeadDim^(-1/2) ·
 * softmaxMscale², softmaxMscale = 0.1 · mscaleAllDim · ln(factor) + 1; the cos and sin carry
 * the scheme's attentionFactor apart.
 */
export interface RopeMla {
  qLoraRank: number;
  kvLoraRank: number;
  qkNopeHeadDim: number;
  qkRopeHeadDim: number;
  vHeadDim: number;
  qkHeadDim: number;
  /** rope_interleave: pair i is dims (2i, 2i+1) of the rotated part. */
  interleaved: boolean;
  mscaleAllDim: number;
  softmaxMscale: number;
  softmaxScale: number;
}

/** Llama 4's NoPE layers: the query at position p times 1 + attnScale · ln(1 + ⌊(p + 1) / floorScale⌋). */
export interface RopeTemperature {
  floorScale: number;
  attnScale: number;
  /** The first position of each step (at most 257, up to max_position_embeddings − 1). */
  positions: number[];
  scales: number[];
}

/** M-RoPE (Qwen2-VL, Qwen2.5-VL: blocks; Qwen3-VL: interleaved). */
export interface RopeMrope {
  /** mrope_section: pairs per axis t, h, w. */
  section: [number, number, number];
  interleaved: boolean;
  /** One letter per pair: 't', 'h' or 'w'. */
  axes: string;
  spatialMergeSize: number;
  /** The sample prompt's three position ids per token, as transformers' get_rope_index. */
  sample: {
    textBefore: number;
    imagePatches: [number, number];
    textAfter: number;
    /** One letter per token: 'T' text, 'I' image. */
    tokens: string;
    t: number[];
    h: number[];
    w: number[];
    ropeDelta: number;
  };
}

export interface RopeConfigReport {
  modelType: string;
  textConfig: boolean;
  /** explicit, or hidden_size / num_attention_heads; MLA: qkHeadDim. */
  headDim: number;
  heads: number;
  kvHeads: number;
  maxPositionEmbeddings: number;
  schemes: RopeScheme[];
  layers: RopeLayer[];
  mla: RopeMla | null;
  temperature: RopeTemperature | null;
  mrope: RopeMrope | null;
  /** Defaults applied, keys not modelled ("… not modelled: …"), semantics worth knowing. */
  notes: string[];
  ignoredKeys: string[];
}

/** The M-RoPE sample prompt: text, an image of imageH × imageW patches, text (3, 6, 8, 2). */
export interface RopeSampleOptions {
  textBefore?: number;
  imageH?: number;
  imageW?: number;
  textAfter?: number;
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
  /** What the inspector reads beyond the rotation and layers. */
  extra: 'none' | 'mla' | 'temperature' | 'mrope' | 'mrope_interleaved';
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
  /**
   * config.json's text (or a multimodal one's text_config) → its position scheme. A bad
   * mropeSample throws on the field 'mropeSample' (or the unknown key).
   */
  ropeConfig(text: string, name?: string, options?: { mropeSample?: RopeSampleOptions }): RopeConfigReport;
  /** The model-type table; absent from the threaded build (the page reads state/model-types.js). */
  modelTypes?(): ModelTypeRow[];
}

export function bindRopeConfig(module: object): RopeConfigLab;
