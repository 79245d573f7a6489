// `npm run timing:text-lab`: a report, not a test. Trains the Train short, test long view's
// runs in Chromium with ONE worker at a time (the default: six methods, N = 64, M = 1024, the
// text task's steps and batch, on the sample) and prints each run's worker-seconds, their
// total and the wall time. Builds and serves dist/ as the e2e run does (POSLAB_E2E_NO_BUILD=1 reuses dist/).
// `-- --methods rope,alibi --steps 500` for a shorter run.
import { cliArg, trainInView, withServedBrowser } from './helpers/train-view.js';

await withServedBrowser(async (browser, baseUrl) => {
  const params = new URLSearchParams({ view: 'text-lab', 'tl.seed': String(Date.now() % 100000) }); // never cached
  if (cliArg('methods')) params.set('tl.methods', cliArg('methods'));
  if (cliArg('steps')) params.set('tl.steps', cliArg('steps'));
  const section = '#view-text-lab';
  const { page, problems, wall } = await trainInView(browser, `${baseUrl}#${params}`, section, 'tl');
  const rows = await page.$$eval(`${section} .tl-table tr`, (trs) =>
    trs.slice(1).map((tr) => [...tr.children].map((c) => c.textContent)),
  );
  let total = 0;
  for (const r of rows) {
    total += Number(r[r.length - 1]);
    console.log(`${r[0]}: ${r[r.length - 1]} worker-s; loss by context ${r.slice(1, -1).join(' ')}`);
  }
  console.log(`total ${total.toFixed(0)} worker-s, wall ${wall.toFixed(0)} s (one worker)`);
  if (problems.length) console.log('page problems:', problems);
});
