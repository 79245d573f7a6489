// The position lens's report (lens.json, docs/lens.md): what `poslab lens` writes, and what a
// language model's lens() and the training module's textLens() return (the same keys, number
// lists as typed arrays).

import type { GptNeoxRope } from './gpt-neox';
import type { Surgery } from './surgery';

export interface LensOptions {
  /** n of the induction pass (a random sequence of n ids, twice); default half the text. */
  period?: number;
  /** Seed of the induction pass's ids and of the shuffle. */
  seed?: number;
  /** k of the shift check; default the text's length (within GPT-2's n_positions). */
  shift?: number;
  /** W: a local head's mass lies within the last W tokens (default 4). */
  localWindow?: number;
  /** 'float' (default) or 'double' (the reference); the lab's model runs in float only. */
  precision?: 'float' | 'double';
  /** RoPE models: a scaling in place of the config's, as forward's rope. */
  rope?: GptNeoxRope;
  /**
   * RoPE models and the lab's: position surgery inside every pass (the bands read against the
   * base and zeroed pairs it sets); GPT-2 refuses it.
   */
  surgery?: Surgery;
}

export type HeadRole = 'sink' | 'previous-token' | 'induction' | 'local' | 'broad';

export interface LensHead {
  layer: number;
  head: number;
  role: HeadRole;
  scores: { sink: number; previous_token: number; induction: number; local: number };
  /** Mean weight at distance i − j = 0, 1, … over the rows that have it (T values). */
  distance_profile: Float32Array;
  /** RoPE models: share of the head's score energy per rotation pair, then the unrotated dims. */
  pair_energy?: Float32Array;
  turning_share?: number;
  bands?: 'positional' | 'semantic';
}

export interface LensReport {
  weights: string;
  tokens: number;
  precision: 'float' | 'double';
  induction: { period: number; seed: number };
  thresholds: { sink: number; previous_token: number; induction: number; local: number; local_window: number };
  role_counts: Record<HeadRole, number>;
  shift: {
    k: number;
    max_abs_logit_change: number;
    max_abs_logit: number;
    relative_change: number;
    invariant_expected: boolean;
  } | null;
  shuffle: {
    loss_by_position: { index: Float64Array; shuffled: Float64Array; constant: Float64Array };
    mean_loss: { index: number; shuffled: number; constant: number };
    seed: number;
  } | null;
  rope_bands: {
    inv_freq: Float64Array;
    wavelength: Float64Array;
    trained_context: number;
    uniform_share: number;
    positional_threshold: number;
    positional_share: number;
    positional_heads: number;
    semantic_heads: number;
  } | null;
  heads: LensHead[];
}

export interface LensMapOptions {
  layer?: number;
  head?: number;
  /** RoPE models: as LensOptions.rope. */
  rope?: LensOptions['rope'];
  /** RoPE models and the lab's: as LensOptions.surgery (the head's map under the intervention). */
  surgery?: Surgery;
}

/** One head's attention on the text: row i (query i) at attention[i * size …]. */
export interface LensMap {
  size: number;
  attention: Float32Array;
}
