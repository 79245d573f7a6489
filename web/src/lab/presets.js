// What the Length generalisation view trains: the methods it compares, the model sizes, and
// the run configurations (one per method and seed) a setting expands to. Steps and embedding
// scales come from the core's defaults table (train-defaults.js, generated from
// cpp/include/poslab/train/config.hpp): the task's steps, each method's scale.
import { METHOD_INFO } from '../content/methods.js';
import { COUPLED_METHODS, isRotation, LAB_METHODS, TRAINER_METHODS } from '../state/methods.js';
import { EMBED_SCALE_BY_METHOD, STEPS_BY_TASK } from '../state/train-defaults.js';

// Seeds per method by default: one seed's ranking did not hold up (docs/lab.md, Metrics).
export const SEEDS = 3;

// Every method the trainer has (the core's table, state/methods.js), then each but NoPE on
// randomised positions (Ruoss et al. 2023), trained for the same steps as its plain run: the
// plain run is its control, so what randomising does is measured at an equal budget.
export const METHODS = LAB_METHODS.map((id) => {
  const position = id.replace(/-random$/, '');
  const label = METHOD_INFO[position]?.label ?? position; // content/methods.js
  // `short`: the name beside its box, under the group's heading.
  return position === id
    ? { id, label, short: label, config: { position } }
    : {
        id,
        label: `${label}, randomised positions`,
        short: label,
        config: { position },
        randomized: true,
        control: position,
      };
});

// Every method the trainer has, on the task's budget: the view's default methods.
export const EVERY_METHOD = [...TRAINER_METHODS];

// The Quick preset: four methods, one of each kind (a learned table, a rotation, a score bias,
// none), on a shorter task and budget, three seeds each — natively about 5.5 s a run on the
// development VM, and every method trains (mean in-distribution exact match over seeds 0–2:
// 0.98–1.00; at 800 steps NoPE's was 0.87). web/src/lab/example/ is this preset trained by the
// native CLI: the view's example before a visitor trains.
export const QUICK_SETTINGS = {
  task: 'copy',
  N: 5,
  size: 'default',
  methods: ['learned', 'rope', 'alibi', 'none'],
  steps: 1000,
  embedScale: 0,
  seed: 0,
  seeds: SEEDS,
};
// The Full preset: every method, plain and on randomised positions (NoPE, CoPE, FoX and Abacus
// plain only: the core refuses randomised positions with them), with 4 layers, three seeds, each on the task's budget: 22 × 3
// runs with the table's thirteen trainer methods, 81 minutes of one worker in Chromium on the
// 2-core development VM (docs/lab.md, "The Full preset, natively").
export const FULL = [...LAB_METHODS];
export const FULL_SETTINGS = { N: 8, size: 'deep', methods: FULL, steps: 0, embedScale: 0, seeds: SEEDS };

/** Steps per task: the core's (copy measured over every method and three seeds, docs/lab.md). */
export const BUDGETS = STEPS_BY_TASK;

export const SIZES = {
  default: { layers: 2, width: 64, heads: 4 },
  small: { layers: 1, width: 32, heads: 2 },
  deep: { layers: 4, width: 64, heads: 4 },
};

export const methodById = (id) => METHODS.find((m) => m.id === id);

/** Tokens of `BOS x SEP y EOS` for an input of `length` (as the core's sequence_length). */
export const sequenceLength = (task, length) => (task === 'addition' ? 3 * length + 5 : 2 * length + 3);

/** The randomised positions' MAX: room for the longest test sequence, twice over, at least 128. */
export function randomMax(task, testLen) {
  let max = 128;
  while (max < 2 * sequenceLength(task, testLen)) max *= 2;
  return max;
}

/**
 * Position coupling's MAX for test lengths up to `testLen`: the least power of two that holds
 * the longest test sequence's positions (BOS at 0, the start at 1, the sum's testLen + 1 digits
 * after it): the core's lower bound, digits + 3 (cpp/src/train/config.cpp).
 */
export function coupledMax(testLen) {
  let max = 2;
  while (max < testLen + 3) max *= 2;
  return max;
}

/**
 * Whether a setting couples positions (Cho et al. 2024): `coupled` on the addition task. Only
 * the methods the core's table lets read positions in any order take it (COUPLED_METHODS), and
 * not on randomised positions (the core takes one way of choosing positions): runPlan leaves the
 * others out rather than mix coupled and plain runs in one table.
 */
export const couples = (p) => Boolean(p.coupled) && p.task === 'addition';

/**
 * Whether a setting zero-pads addition's operands to N digits (Lee et al. 2023's fixed width):
 * `pad` on the addition task, every method. Without it the lab's model does not learn addition
 * in distribution at any method (docs/lab.md, "Addition at the defaults").
 */
export const pads = (p) => Boolean(p.pad) && p.task === 'addition';

/**
 * The options a setting `p` gives a run of `position` (the JS API's): attention sinks (gpt-oss)
 * on every method; NoPE layers every K (SmolLM3, Llama 4) and, with a floor, Llama 4's attention
 * temperature on them, on the rotations only (the others have no rotation to leave out, and
 * train as they are). Empty when none is set, so a run's configuration (its cache key) is what
 * it was before these options.
 */
export function attentionOptions(p, position) {
  const o = {};
  if (p.sinks) o.sinks = true;
  if (p.nopeEvery > 0 && isRotation(position)) {
    o.nopeEvery = p.nopeEvery;
    if (p.attnFloor > 0) Object.assign(o, { attnFloorScale: p.attnFloor, attnScale: p.attnScale });
  }
  return o;
}

/**
 * The runs of a setting: for each method in `methods` (known ids only, in METHODS' order), one
 * run per seed `seed` .. `seed` + `seeds` − 1 (one seed when `seeds` is not given). A run's id
 * is its method's for the first seed and `<method>#<k>` for the k-th after it; `method` and
 * `seed` say which.
 * `steps` 0 is the task's budget and `embedScale` 0 each method's scale (train-defaults.js).
 * `coupled` on addition couples positions (couples()), `pad` zero-pads its operands (pads()); `sinks`, `nopeEvery`, `attnFloor` and
 * `attnScale` as attentionOptions() says.
 * @param {{ task: string, N: number, size: string, methods: string[], steps: number, seed: number, seeds?: number, embedScale: number, coupled?: boolean, pad?: boolean, sinks?: boolean, nopeEvery?: number, attnFloor?: number, attnScale?: number }} p
 * @returns {{ id: string, method: string, label: string, seed: number, config: Record<string, any> }[]}
 */
export function runPlan(p) {
  const wanted = new Set(p.methods);
  const testLen = 4 * p.N;
  const seeds = p.seeds ?? 1;
  const coupled = couples(p);
  const takes = (m) => !coupled || (!m.randomized && COUPLED_METHODS.includes(m.config.position));
  return METHODS.filter((m) => wanted.has(m.id) && takes(m)).flatMap((m) =>
    Array.from({ length: seeds }, (_, k) => {
      const base = p.steps > 0 ? p.steps : BUDGETS[p.task];
      const config = {
        task: p.task,
        trainLen: p.N,
        testLen,
        ...SIZES[p.size],
        steps: base,
        seed: p.seed + k,
        embedScale: p.embedScale > 0 ? p.embedScale : EMBED_SCALE_BY_METHOD[m.config.position],
        ...m.config,
      };
      if (m.randomized) config.randomizedPositions = randomMax(p.task, testLen);
      if (coupled) config.coupledPositions = coupledMax(testLen);
      if (pads(p)) config.padOperands = true;
      Object.assign(config, attentionOptions(p, m.config.position));
      return { id: k ? `${m.id}#${k}` : m.id, method: m.id, label: m.label, seed: p.seed + k, config };
    }),
  );
}
