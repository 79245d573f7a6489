// `npm run timing:lab`: a report, not a test. Trains the Length generalisation view's default
// settings (copy, N = 8, every method, embed scale 4, default model and the task's budget) in
// Chromium with ONE worker at a time, and prints each method's worker-seconds, the total, the
// wall time, and exact match on lengths 1–N / N+1–2N / 2N+1–4N with the mean per-token accuracy
// past N; writes test-output/e2e/lab-timing.json. Builds and serves dist/ as the e2e run does
// (POSLAB_E2E_NO_BUILD=1 reuses dist/). `-- --preset quick` times the Quick preset instead;
// `-- --methods none,alibi --steps 300` for a shorter run.
import fs from 'node:fs';
import path from 'node:path';
import { methodById, QUICK_SETTINGS } from '../../web/src/lab/presets.js';
import serve from './global-setup.js';
import { launch, openPage, outDir } from './helpers/browser.js';

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
let baseUrl;
const stopServer = await serve({ provide: (_k, v) => (baseUrl = v) });
const browser = await launch();
try {
  const params = new URLSearchParams({ view: 'length-generalisation' });
  if (arg('preset') === 'quick')
    for (const [k, v] of Object.entries(QUICK_SETTINGS))
      params.set(`lg.${k}`, Array.isArray(v) ? v.join(',') : String(v));
  if (arg('methods')) params.set('lg.methods', arg('methods'));
  if (arg('steps')) params.set('lg.steps', arg('steps'));
  const { page, problems } = await openPage(browser, `${baseUrl}#${params}`);
  // One worker, as on this 2-core machine's share: the figure is worker-seconds.
  await page.evaluate(() => Object.defineProperty(navigator, 'hardwareConcurrency', { value: 2 }));
  const section = '#view-length-generalisation';
  await page.waitForFunction(
    (s) => /cached|restored/.test(document.querySelector(s)?.textContent ?? ''),
    `${section} .lg-progress`,
  );
  const t0 = Date.now();
  await page.click(`${section} .lg-train`);
  await page.waitForFunction(
    (s) => /^Done/.test(document.querySelector(s)?.textContent ?? ''),
    `${section} .lg-progress`,
    {
      timeout: 3_600_000,
      polling: 1000,
    },
  );
  const wall = (Date.now() - t0) / 1000;
  const download = page.waitForEvent('download');
  await page.click(`${section} .lg-exports button:has-text("Results JSON")`);
  const results = JSON.parse(fs.readFileSync(await (await download).path(), 'utf8'));
  const seconds = await page.$$eval(`${section} .lg-table tr`, (rows) =>
    Object.fromEntries(rows.slice(1).map((r) => [r.children[1].textContent, Number(r.children[6].textContent)])),
  );
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rows = [];
  for (const [id, r] of Object.entries(results)) {
    const N = r.config.train_len;
    const acc = (lo, hi) => mean(Array.from({ length: hi - lo + 1 }, (_, i) => r.accuracy_by_length[lo + i]));
    const tokens = mean(
      Object.entries(r.token_accuracy_by_position)
        .filter(([L]) => Number(L) > N)
        .map(([, a]) => mean(a)),
    );
    rows.push({
      id,
      steps: r.config.steps,
      wall_s: r.wall_time_s,
      exact: [acc(1, N), acc(N + 1, 2 * N), acc(2 * N + 1, 4 * N)],
      tokens,
    });
  }
  const workerSeconds = Object.values(seconds).reduce((a, b) => a + b, 0);
  console.log(
    `Length generalisation (${arg('preset') ?? 'default settings'}) in Chromium, one worker: ${wall.toFixed(0)} s wall, ${workerSeconds.toFixed(0)} worker-seconds`,
  );
  console.log('method        steps  worker s   exact 1–N / N+1–2N / 2N+1–4N   token acc past N');
  for (const r of rows) {
    r.workerSeconds = seconds[methodById(r.id).label];
    console.log(
      `${r.id.padEnd(12)} ${String(r.steps).padStart(6)} ${r.workerSeconds.toFixed(1).padStart(9)}   ` +
        `${r.exact
          .map((x) => x.toFixed(2))
          .join(' / ')
          .padEnd(28)} ${r.tokens.toFixed(2)}`,
    );
  }
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(
    path.join(outDir, 'lab-timing.json'),
    JSON.stringify({ wall, workerSeconds, seconds, rows }, null, 1),
  );
  if (problems.length) {
    console.error('page problems:', problems);
    process.exitCode = 1;
  }
} finally {
  await browser.close();
  await stopServer();
}
