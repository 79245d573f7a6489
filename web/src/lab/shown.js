// What the lab's figures show, so that a figure always belongs to the settings beside it or says
// whose it is: the finished runs of the settings shown; when there are none yet, the last runs
// of other settings for the methods still selected, marked "from the previous run" (methods no
// longer selected are dropped); before any run of one's own, the bundled example, labelled so.

/**
 * @typedef {{ id: string, method?: string, seed?: number, label: string, config: Record<string, any>, run: any }} ShownRow
 * @typedef {{ source: 'current' | 'previous' | 'example' | 'none', N: number, rows: ShownRow[] }} Shown
 */

/**
 * @param {{ plan: { id: string, label: string, config: any }[], done: Map<string, any>, N: number,
 *   previous?: Shown | null, example?: { plan: any[], runs: Map<string, any>, settings: { N: number } } | null }} o
 *   plan and done: the runs of the settings shown and those of them finished; previous: the
 *   last `current` Shown of other settings; example: lab/example.js
 * @returns {Shown}
 */
export function shownRuns({ plan, done, N, previous = null, example = null }) {
  const current = plan.filter((r) => done.has(r.id)).map((r) => ({ ...r, run: done.get(r.id) }));
  if (current.length) return { source: 'current', N, rows: current };
  const selected = new Set(plan.map((r) => r.id));
  const kept = previous?.rows.filter((r) => selected.has(r.id)) ?? [];
  if (kept.length) return { source: 'previous', N: previous.N, rows: kept };
  if (example) {
    const rows = example.plan.map((r) => ({ ...r, run: example.runs.get(r.id) }));
    return { source: 'example', N: example.settings.N, rows };
  }
  return { source: 'none', N, rows: [] };
}

/**
 * The loss curves to draw: the settings' own runs' (live while they train) once any has a
 * curve, else those of what the results show.
 * @param {{ id: string, label: string, config: any }[]} plan
 * @param {Map<string, [number, number][]>} curves
 * @param {Shown} shown
 * @returns {{ own: boolean, runs: { id: string, method: string, label: string, curve: [number, number][] }[] }}
 */
export function shownCurves(plan, curves, shown) {
  const own = plan.filter((r) => curves.get(r.id)?.length);
  if (own.length) {
    return {
      own: true,
      runs: own.map((r) => ({ id: r.id, method: r.method ?? r.id, label: r.label, curve: curves.get(r.id) })),
    };
  }
  return {
    own: shown.source === 'current',
    runs: shown.rows.map((r) => ({
      id: r.id,
      method: r.method ?? r.id,
      label: r.label,
      curve: r.run.result.loss_curve,
    })),
  };
}

/** The line under each figure saying whose runs it shows ('' for the settings shown). */
export function sourceNote(source) {
  if (source === 'example')
    return 'Example, not your settings: the Quick preset trained by PosLab’s command-line tool. Press Train to train the settings shown.';
  if (source === 'previous')
    return 'From the previous run, with other settings (greyed): press Train to train the settings shown.';
  return '';
}
