// How the view reads finished runs: each method's runs (one per seed) summarised metric by
// metric as mean ± sample sd with every seed's value; in-distribution exact match first (a
// method under TRAINED did not train and is never said not to generalise); then the trained
// methods ranked on the primary metric, two of them apart only when |Δmean| > sd₁ + sd₂,
// otherwise tied. The metrics are the core's (result.json's `metrics`, train/metrics.cpp);
// docs/lab.md says what each measures.

/** Mean in-distribution exact match under this: the method did not train (kTrainedThreshold). */
export const TRAINED = 0.9;

/** The metrics of result.json, in the order the table shows them; `label(N)` for its header. */
export const METRICS = [
  {
    key: 'exact_match_in_distribution',
    label: (N) => `exact match 1..${N}`,
    plain: 'whole answers right on trained lengths',
  },
  {
    key: 'exact_match_n_to_2n',
    label: (N) => `exact match ${N + 1}..${2 * N}`,
    plain: 'whole answers right up to twice the trained length: the primary metric',
  },
  {
    key: 'answer_accuracy_n_to_2n',
    label: (N) => `answer tokens ${N + 1}..${2 * N}`,
    plain: 'answer tokens right there, end-of-sequence left out',
  },
  {
    key: 'exact_match_2n_to_4n',
    label: (N) => `exact match ${2 * N + 1}..${4 * N}`,
    plain: 'whole answers right from twice to four times the trained length',
  },
];
export const PRIMARY = 'exact_match_n_to_2n';

/**
 * Mean, sample standard deviation (0 for one value) and the values; mean and sd null when any
 * value is (lengths a run did not test), as the core's summarize.
 * @param {(number | null)[]} values
 */
export function summary(values) {
  if (!values.length || values.some((v) => v === null || v === undefined)) return { mean: null, sd: null, values };
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1)) : 0;
  return { mean, sd, values };
}

/** Whether `a` ranks above `b`: |Δmean| > sd_a + sd_b in a's favour; otherwise a tie. */
export const ranksAbove = (a, b) => a.mean !== null && b.mean !== null && a.mean - b.mean > a.sd + b.sd;

/**
 * A setting's finished runs by method, in the order met: { id, label, runs, metrics, trained },
 * `metrics` mapping each of METRICS to its summary over the method's runs.
 * @param {{ method?: string, id: string, label: string, run: { result: any } }[]} rows
 */
export function byMethod(rows) {
  const groups = new Map();
  for (const r of rows) {
    const id = r.method ?? r.id;
    if (!groups.has(id)) groups.set(id, { id, label: r.label, runs: [] });
    groups.get(id).runs.push(r);
  }
  return [...groups.values()].map((g) => {
    const metrics = Object.fromEntries(
      METRICS.map(({ key }) => [key, summary(g.runs.map((r) => r.run.result.metrics?.[key] ?? null))]),
    );
    const inside = metrics.exact_match_in_distribution.mean;
    return { ...g, metrics, trained: inside !== null && inside >= TRAINED };
  });
}

/**
 * The measured order: trained methods by the primary metric's mean (best first), each with its
 * `rank` (shared with the one above when the two tie) and `tie`; then the untrained ones, rank
 * null.
 * @template {{ trained: boolean, metrics: Record<string, ReturnType<typeof summary>> }} G
 * @param {G[]} groups
 * @returns {(G & { rank: number | null, tie: boolean })[]}
 */
export function rank(groups) {
  const primary = (g) => g.metrics[PRIMARY];
  const trained = groups.filter((g) => g.trained).sort((a, b) => (primary(b).mean ?? -1) - (primary(a).mean ?? -1));
  const ranked = [];
  trained.forEach((g, i) => {
    const above = ranked[i - 1];
    const apart = !above || ranksAbove(primary(trained[i - 1]), primary(g));
    ranked.push({ ...g, rank: apart ? i + 1 : above.rank, tie: !apart });
    if (!apart) above.tie = true;
  });
  return [...ranked, ...groups.filter((g) => !g.trained).map((g) => ({ ...g, rank: null, tie: false }))];
}

/** The ranked order as text: "a > b = c" (= between tied neighbours). */
// The table's labels (content/methods.js, through the runs), never the internal ids: "ALiBi > NoPE".
export const orderText = (ranked) =>
  ranked
    .filter((g) => g.rank !== null)
    .map((g, i, all) => `${i === 0 ? '' : `${all[i - 1].rank === g.rank ? '=' : '>'} `}${g.label ?? g.id}`)
    .join(' ');

/**
 * Each method on randomised positions (`<method>-random`) beside its plain control among
 * `groups`, on the primary metric: { id, label (the plain one's), randomized, plain, verdict }, the
 * verdict 'better', 'worse' or 'a tie' by ranksAbove, 'did not train' when either did not.
 */
export function controlPairs(groups) {
  return groups.flatMap((g) => {
    const plain = g.id.endsWith('-random') && groups.find((c) => c.id === g.id.replace(/-random$/, ''));
    if (!plain) return [];
    const [r, c] = [g.metrics[PRIMARY], plain.metrics[PRIMARY]];
    const verdict =
      !g.trained || !plain.trained
        ? 'did not train'
        : ranksAbove(r, c)
          ? 'better'
          : ranksAbove(c, r)
            ? 'worse'
            : 'a tie';
    return [{ id: g.id, label: plain.label, randomized: r, plain: c, verdict }];
  });
}

/** Mean per-token accuracy at each answer position over the lengths past N and over `results`
 * (ragged: each position averages the lengths and runs that have it). */
export function tokenAccuracyBeyond(results, N) {
  const sums = [];
  const counts = [];
  for (const result of [results].flat()) {
    for (const [L, accs] of Object.entries(result.token_accuracy_by_position)) {
      if (Number(L) <= N) continue;
      accs.forEach((a, k) => {
        sums[k] = (sums[k] ?? 0) + a;
        counts[k] = (counts[k] ?? 0) + 1;
      });
    }
  }
  return sums.map((s, k) => s / counts[k]);
}

/** Exact match at each length 1..M, the mean over `results`. */
export const exactMatchByLength = (results, M) =>
  Float64Array.from(
    { length: M },
    (_, i) => results.reduce((a, r) => a + r.accuracy_by_length[i + 1], 0) / results.length,
  );

/** The loss at each step, the mean over the curves that reached it ([[step, loss], …] each). */
export function meanLossCurve(curves) {
  const sums = new Map();
  for (const curve of curves) {
    for (const [step, loss] of curve) {
      const s = sums.get(step) ?? [0, 0];
      sums.set(step, [s[0] + loss, s[1] + 1]);
    }
  }
  return [...sums].sort((a, b) => a[0] - b[0]).map(([step, [sum, n]]) => [step, sum / n]);
}

// The papers' results as claims, at their scale (docs/lab.md, References).
export const PAPERS = [
  {
    cite: 'Kazemnejad et al. 2023',
    setting: 'decoder-only, ~107M parameters, 12 layers, 40K steps; trained on lengths ≤ 20, tested to 40',
    claim: 'NoPE > T5 bias > ALiBi > RoPE > learned absolute (mean reciprocal rank 0.69, 0.55, 0.50, 0.33, 0.22)',
    order: ['none', 't5', 'alibi', 'rope', 'learned'],
  },
  {
    cite: 'Ruoss et al. 2023',
    setting:
      'encoder, 5 layers, width 64, 8 heads; lengths ≤ 40, positions sampled from up to 2048, tested to 100 and beyond',
    claim: 'randomised positions raise accuracy past the trained length for every method',
    order: null,
  },
];
