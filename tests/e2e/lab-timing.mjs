// `npm run timing:lab`: a report, not a test. Trains the Length generalisation view's default
// settings (copy, N = 8, every method, embed scale 4, default model and the task's budget) in
// Chromium with ONE worker at a time, and prints each method's worker-seconds over its seeds,
// the total, the wall time, and the lab's four metrics as mean ± sd over the seeds; writes
// test-output/e2e/lab-timing.json. Builds and serves dist/ as the e2e run does
// (POSLAB_E2E_NO_BUILD=1 reuses dist/). `-- --preset quick` or `-- --preset full` times that
// preset instead; `-- --workers 2` trains on two workers (the page gives hardwareConcurrency − 1),
// which leaves the worker-seconds about as they are on a machine with a core per worker;
// `-- --methods none,alibi --steps 300` for a shorter run.
import fs from 'node:fs';
import path from 'node:path';
import { FULL_SETTINGS, methodById, QUICK_SETTINGS } from '../../web/src/lab/presets.js';
import { outDir } from './helpers/browser.js';
import { cliArg, trainInView, withServedBrowser } from './helpers/train-view.js';

await withServedBrowser(async (browser, baseUrl) => {
  const params = new URLSearchParams({ view: 'length-generalisation' });
  const presets = { quick: QUICK_SETTINGS, full: FULL_SETTINGS };
  const preset = cliArg('preset');
  if (preset !== undefined && !presets[preset]) throw new Error(`--preset takes quick or full, got ${preset}`);
  for (const [k, v] of Object.entries(presets[preset] ?? {}))
    params.set(`lg.${k}`, Array.isArray(v) ? v.join(',') : String(v));
  if (cliArg('methods')) params.set('lg.methods', cliArg('methods'));
  if (cliArg('steps')) params.set('lg.steps', cliArg('steps'));
  const section = '#view-length-generalisation';
  const workers = Number(cliArg('workers') ?? 1);
  const { page, problems, wall } = await trainInView(browser, `${baseUrl}#${params}`, section, 'lg', workers);
  const download = page.waitForEvent('download');
  await page.click(`${section} .lg-exports button:has-text("Results JSON")`);
  const results = JSON.parse(fs.readFileSync(await (await download).path(), 'utf8'));
  // The table's last column: each method's worker-seconds over its seeds.
  const seconds = await page.$$eval(`${section} .lg-table tr`, (rows) =>
    Object.fromEntries(rows.slice(1).map((r) => [r.children[1].textContent, Number(r.lastChild.textContent)])),
  );
  const cell = (s) => (s.mean === null ? 'n/a' : `${s.mean.toFixed(2)} ± ${s.sd.toFixed(2)}`);
  const rows = Object.entries(results).map(([id, r]) => ({
    id,
    seeds: r.runs.length,
    steps: r.runs[0].config.steps,
    workerSeconds: seconds[methodById(id)?.label],
    summary: r.summary,
  }));
  const workerSeconds = Object.values(seconds).reduce((a, b) => a + b, 0);
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(
    path.join(outDir, 'lab-timing.json'),
    JSON.stringify({ preset: preset ?? 'default', workers, wall, workerSeconds, seconds, rows }, null, 1),
  );
  console.log(
    `Length generalisation (${preset ?? 'default settings'}) in Chromium, ${workers} worker(s): ${wall.toFixed(0)} s wall, ${workerSeconds.toFixed(0)} worker-seconds`,
  );
  console.log('method        seeds  steps  worker s   exact 1–N      exact N+1–2N   answer N+1–2N  exact 2N+1–4N');
  for (const r of rows) {
    const m = r.summary;
    console.log(
      `${r.id.padEnd(13)} ${String(r.seeds).padStart(5)} ${String(r.steps).padStart(6)} ${(r.workerSeconds?.toFixed(1) ?? 'n/a').padStart(9)}   ` +
        [m.exact_match_in_distribution, m.exact_match_n_to_2n, m.answer_accuracy_n_to_2n, m.exact_match_2n_to_4n]
          .map((s) => cell(s).padEnd(14))
          .join(' '),
    );
  }
  if (problems.length) {
    console.error('page problems:', problems);
    process.exitCode = 1;
  }
});
