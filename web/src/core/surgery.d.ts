// Position surgery (docs/surgery.md): the interventions a RoPE model's forward, lens, lensMap and
// surgery() and the lab's textLens, textLensMap and textSurgery() take, the sweep's options, and
// its report — surgery.json, what `poslab surgery` writes (its keys, number lists as arrays).

import type { GptNeoxRope } from './gpt-neox';

/**
 * Interventions inside the forward pass, never edits of the weights; they combine. Pair i in
 * Hugging Face's order (0: the highest frequency) within the rotary width R; layers and (query)
 * heads from 0. Ranges are checked against the model (the error's field: the key).
 */
export interface Surgery {
  /** Pair ranges [first, last) whose angle is 0 (a zeroed pair keeps the scaling's attention factor). */
  ropeZeroPairs?: [number, number][];
  /** Layers that skip the rotation. */
  nopeLayers?: number[];
  /** [layer, head]: heads whose q and k are not rotated. */
  nopeHeads?: [number, number][];
  /** The rotation base of the full-attention layers (every layer but Gemma 3's sliding ones); above 1. */
  ropeBase?: number;
  /** Gemma 3: the rotation base of its sliding-window layers; above 1. */
  ropeLocalBase?: number;
  /** [layer, head]: heads whose attention output is zeroed before the output projection. */
  ablateHeads?: [number, number][];
}

export type SweepKind = 'bands' | 'layers' | 'heads' | 'base' | 'single';

export interface SurgeryOptions {
  /**
   * bands: zero each group of pairs, then keep the top p for p in 1, 0.75, 0.5, 0.25, 0; layers:
   * each layer NoPE; heads: each head NoPE and, separately, ablated, with the lens's role of
   * each; base: each base; single: the one `surgery` given.
   */
  sweep: SweepKind;
  /** bands only: pairs per group; 0 or absent: as many as make 16 groups. */
  group?: number;
  /** base only: the bases tried (each above 1); absent or empty: the model's × 0.01, 0.1, 0.5, 2, 10. */
  bases?: number[];
  /** Tokens per window (0 or absent: the whole text as one; else at least 2); a last partial window is dropped. */
  window?: number;
  /** Seed of the bootstrap interval. */
  seed?: number;
  /** single only (and required there): the intervention. */
  surgery?: Surgery;
  /** 'float' (default) or 'double' (the reference); the lab's model runs in float only. */
  precision?: 'float' | 'double';
  /** A scaling in place of the model's, as the lens's rope. */
  rope?: GptNeoxRope;
  /**
   * Called after each pass group (the unmodified model's, then each intervention's) with how many
   * are done of how many. What it throws stops the sweep: the call then throws a PosLabError
   * whose cause is that exception.
   */
  onProgress?: (done: number, total: number) => void;
}

export interface SurgeryIntervention {
  /** "zero pairs 0:2", "keep top 75%", "NoPE layer 3", "NoPE head 1:2", "ablate head 1:2", "base 500", … */
  name: string;
  kind: 'zero_pairs' | 'keep_top' | 'nope_layer' | 'nope_head' | 'ablate_head' | 'base' | 'single';
  /** Whichever apply, in surgery.json's spelling. */
  params: {
    rope_zero_pairs?: [number, number][];
    nope_layers?: number[];
    nope_heads?: [number, number][];
    ablate_heads?: [number, number][];
    rope_base?: number;
    rope_local_base?: number;
    fraction?: number;
    layer?: number;
    head?: number;
  };
  loss_mean: number;
  /** The change in mean next-token loss, in nats, and its seeded 95 % bootstrap interval. */
  delta_mean: number;
  delta_ci: [number, number];
  /** The mean change at positions t < N of each window, and at t ≥ N; null when N is unknown or none falls there. */
  delta_within_context: number | null;
  delta_past_context: number | null;
  /** (T − 1,): the mean over the windows. */
  loss_by_position: number[];
  /** heads sweep: the head's role, as the lens reads it on the text's first min(window, 4096) tokens. */
  lens?: {
    role: 'sink' | 'previous-token' | 'induction' | 'local' | 'broad';
    scores: { sink: number; previous_token: number; induction: number; local: number };
    bands: 'positional' | 'semantic' | null;
    turning_share: number | null;
  };
}

export interface SurgeryReport {
  format: 'poslab-surgery/1';
  weights: string;
  precision: 'float' | 'double';
  sweep: SweepKind;
  tokens: number;
  window: number;
  windows: number;
  /** bands: pairs per group; otherwise null. */
  group: number | null;
  /** N; null when unknown. */
  trained_context: number | null;
  /** unit: 'windows' with 8 or more windows, else 'positions'. */
  bootstrap: { unit: 'windows' | 'positions'; resamples: number; seed: number };
  /** Passes run, and whole passes per window (a pass from layer l of L counts (L − l)/L). */
  forwards: number;
  forward_equivalents: number;
  prefix_reused: boolean;
  baseline: { loss_mean: number; loss_by_position: number[] };
  interventions: SurgeryIntervention[];
  notes: string[];
}
