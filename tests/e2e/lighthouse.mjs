// `npm run report:lighthouse`: a report, not a test. Lighthouse 13.5 (pinned; its package asks
// for Node >= 22.19 but runs on the suite's Node 20 with an engine warning) drives Debian's
// Chromium against `vite preview` of the built site and prints, for the playground (its
// landing), Encodings and the embed page on its mobile and desktop presets, the performance and
// accessibility scores with total blocking time, cumulative layout shift and largest
// contentful paint; the reports go to
// test-output/lighthouse/. Builds like the e2e run (POSLAB_E2E_NO_BUILD=1 reuses the build;
// POSLAB_LIGHTHOUSE_PRESETS=mobile runs one preset). Exits non-zero only when Lighthouse or
// Chromium fails to run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import serve from './global-setup.js';

const outDir = path.resolve(new URL('../..', import.meta.url).pathname, 'test-output/lighthouse');
fs.mkdirSync(outDir, { recursive: true });

// The playground's address (the landing), the view it opened on before the landing existed,
// and an embed.
const PAGES = { playground: '', encodings: '#view=encodings', embed: 'embed.html#plot=encodings.table' };
const PRESETS = { mobile: undefined, desktop: desktopConfig };
const presets = (process.env.POSLAB_LIGHTHOUSE_PRESETS ?? 'mobile,desktop').split(',');

// Chromium with a DevTools port of its choosing, read off its stderr.
function startChromium() {
  const executable = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-lighthouse-'));
  const child = spawn(executable, [
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    `--user-data-dir=${profile}`,
    '--remote-debugging-port=0',
    'about:blank',
  ]);
  const exited = new Promise((r) => child.once('exit', r));
  const stop = async () => {
    child.kill();
    await exited;
    // Chromium's helpers may still be writing to the profile; a leftover temp folder is harmless.
    try {
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    } catch {}
  };
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(err);
      if (m) resolve({ port: Number(m[1]), stop });
    });
    child.on('exit', (code) =>
      reject(new Error(`Chromium exited (${code}) before DevTools was up: ${err.slice(-400)}`)),
    );
  });
}

const ms = (v) => `${Math.round(v)} ms`;

let base = null;
const stop = await serve({ provide: (_key, url) => (base = url) });
const chromium = await startChromium();
const rows = [];
try {
  for (const [page, suffix] of Object.entries(PAGES))
    for (const preset of presets) {
      const result = await lighthouse(
        `${base}${suffix}`,
        { port: chromium.port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility'] },
        PRESETS[preset],
      );
      if (!result?.lhr) throw new Error(`Lighthouse returned no report for ${page} (${preset})`);
      const { categories, audits } = result.lhr;
      fs.writeFileSync(path.join(outDir, `${page}-${preset}.json`), result.report);
      const row = {
        page,
        preset,
        performance: Math.round(categories.performance.score * 100),
        accessibility: Math.round(categories.accessibility.score * 100),
        tbt: audits['total-blocking-time'].numericValue,
        cls: audits['cumulative-layout-shift'].numericValue,
        lcp: audits['largest-contentful-paint'].numericValue,
      };
      rows.push(row);
      console.log(
        `[lighthouse] ${page} ${preset}: performance ${row.performance}, accessibility ${row.accessibility}; ` +
          `TBT ${ms(row.tbt)}, CLS ${row.cls.toFixed(3)}, LCP ${ms(row.lcp)}`,
      );
      const failing = Object.values(audits).filter(
        (a) =>
          a.score !== null && a.score < 1 && result.lhr.categories.accessibility.auditRefs.some((r) => r.id === a.id),
      );
      for (const a of failing) console.log(`[lighthouse]   accessibility: ${a.id} (${a.title})`);
    }
} finally {
  await chromium.stop();
  await stop();
  fs.writeFileSync(path.join(outDir, 'summary.json'), `${JSON.stringify(rows, null, 2)}\n`);
}
