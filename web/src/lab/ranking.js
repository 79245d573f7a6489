// How the view reads a finished run: in-distribution accuracy first (a method that did not
// train is never said not to generalise), then the measured ranking by mean per-token
// accuracy on lengths N+1..4N, beside the papers' claims.

/** Exact match below this on the trained lengths: the method did not train. */
export const TRAINED = 0.5;

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

/**
 * @param {{ accuracy_by_length: Record<string, number>, token_accuracy_by_position: Record<string, number[]> }} result
 * @param {number} N the longest trained length
 */
export function summarise(result, N) {
  const lengths = Object.keys(result.accuracy_by_length)
    .map(Number)
    .sort((a, b) => a - b);
  const inside = lengths.filter((L) => L <= N);
  const beyond = lengths.filter((L) => L > N);
  const inDistribution = mean(inside.map((L) => result.accuracy_by_length[L]));
  return {
    inDistribution,
    trained: inDistribution >= TRAINED,
    exactBeyond: mean(beyond.map((L) => result.accuracy_by_length[L])),
    tokenBeyond: mean(beyond.map((L) => mean(result.token_accuracy_by_position[L]))),
  };
}

/** Mean per-token accuracy at each answer position over the lengths past N (ragged: each
 * position averages the lengths that have it). */
export function tokenAccuracyBeyond(result, N) {
  const sums = [];
  const counts = [];
  for (const [L, accs] of Object.entries(result.token_accuracy_by_position)) {
    if (Number(L) <= N) continue;
    accs.forEach((a, k) => {
      sums[k] = (sums[k] ?? 0) + a;
      counts[k] = (counts[k] ?? 0) + 1;
    });
  }
  return sums.map((s, k) => s / counts[k]);
}

/**
 * The measured order: trained methods by tokenBeyond (best first), then the untrained ones.
 * @param {{ id: string, label: string, summary: ReturnType<typeof summarise> }[]} rows
 */
export function rank(rows) {
  const trained = rows.filter((r) => r.summary.trained).sort((a, b) => b.summary.tokenBeyond - a.summary.tokenBeyond);
  return [...trained, ...rows.filter((r) => !r.summary.trained)];
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
