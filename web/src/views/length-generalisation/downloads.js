// The Length generalisation view's downloads, of what the figures show (the example's too: its
// files are the CLI's): per method every seed's result.json and each metric's summary, the
// exact match by length as CSV, and the weights of the run whose attention is shown.
import { download } from '../../export/download.js';
import { byMethod } from '../../lab/ranking.js';
import { downloadJson } from '../lab-layout.js';

/** The Results JSON: method → { runs: every seed's result, summary: its metrics }. */
export function resultsJson(rows) {
  return Object.fromEntries(
    byMethod(rows).map((g) => [g.id, { runs: g.runs.map((r) => r.run.result), summary: g.metrics }]),
  );
}

/** The Accuracy CSV: a row per length 1..4N, a column per run shown. */
export function accuracyCsv(rows, N) {
  const lines = [['length', ...rows.map((r) => r.id)].join(',')];
  for (let L = 1; L <= 4 * N; L++) lines.push([L, ...rows.map((r) => r.run.result.accuracy_by_length[L])].join(','));
  return lines.join('\n') + '\n';
}

/**
 * Adds the export buttons (labResults' `exportButton`). `shown()` is what the figures show;
 * `selected()` the { id, run } whose attention is shown. Returns the model button, enabled only
 * while that run has weights.
 */
export function downloadButtons(exportButton, shown, selected) {
  exportButton('Results JSON', () => downloadJson('length-generalisation.json', resultsJson(shown().rows)));
  exportButton('Accuracy CSV', () => {
    const csv = accuracyCsv(shown().rows, shown().N);
    download('length-generalisation.csv', new Blob([csv], { type: 'text/csv' }));
  });
  return exportButton('Model .safetensors', () => {
    const { id, run } = selected();
    if (run?.checkpoint) download(`lab-${id}.safetensors`, new Blob([run.checkpoint]));
  });
}
