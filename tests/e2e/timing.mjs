// `npm run timing:e2e`: a report, not a test (nothing here can pass or fail on speed). Prints
// a slider step → recompute + redraw at L=512, D=512 and at L=8192, D=1024 (with the longest
// main-thread stall while it runs), and first load to the first drawn plot; also writes
// test-output/e2e/timings.json. Builds and serves dist/ as the e2e run does
// (POSLAB_E2E_NO_BUILD=1 reuses dist/). Exits non-zero when a page reports an error, since
// its figures would then mean nothing.
import fs from 'node:fs';
import path from 'node:path';
import serve from './global-setup.js';
import { drawn, launch, openPage, outDir } from './helpers/browser.js';

const results = {};

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const fmt = (v) => `${v.toFixed(1)} ms`;

// Starts recording the page's long main-thread tasks (Long Tasks API: every task over 50 ms).
const watchLongTasks = (page) =>
  page.evaluate(() => {
    globalThis.__longTasks = [];
    new PerformanceObserver((list) => globalThis.__longTasks.push(...list.getEntries().map((e) => e.duration))).observe(
      {
        type: 'longtask',
      },
    );
  });

// Presses an arrow key on the L slider n times, waiting for each redraw; records the page's
// input → drawn time, the longest gap between animation frames and the long tasks meanwhile.
async function slide(page, key, n) {
  await page.evaluate(() => (globalThis.__longTasks = []));
  const slider = page.locator('#view-encodings .control-slider input[type=range]').first();
  const rows = [];
  for (let i = 0; i < n; i++) {
    const before = await page.evaluate(() => globalThis.__poslabTimings.length);
    await page.evaluate(() => {
      globalThis.__gap = 0;
      let last = performance.now();
      const loop = (t) => {
        globalThis.__gap = Math.max(globalThis.__gap, t - last);
        last = t;
        if (!globalThis.__stop) requestAnimationFrame(loop);
      };
      globalThis.__stop = false;
      requestAnimationFrame(loop);
    });
    await slider.focus();
    await page.keyboard.press(key);
    await page.waitForFunction((b) => globalThis.__poslabTimings.length > b, before, { timeout: 120_000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))); // let the frame paint
    rows.push(
      await page.evaluate(() => ({
        ...globalThis.__poslabTimings.at(-1),
        maxFrameGapMs: (globalThis.__stop = true) && globalThis.__gap,
        longestTaskMs: Math.max(0, ...globalThis.__longTasks.splice(0)),
      })),
    );
  }
  return rows;
}

function report(name, rows) {
  const total = rows.map((r) => r.totalMs);
  const summary = {
    n: rows.length,
    p50: pct(total, 50),
    p95: pct(total, 95),
    computeP50: pct(
      rows.map((r) => r.computeMs),
      50,
    ),
    paintP50: pct(
      rows.map((r) => r.paintMs),
      50,
    ),
    drawP50: pct(
      rows.map((r) => r.drawMs),
      50,
    ),
    // Steps run on the main thread (worker/inline.js) and, for the others, the time their
    // messages spent between threads (posted → result taken, less the worker's own time).
    inline: rows.filter((r) => r.inline).length,
    betweenThreadsP50: pct(
      rows.filter((r) => !r.inline).map((r) => r.betweenThreadsMs),
      50,
    ),
    maxFrameGap: Math.max(...rows.map((r) => r.maxFrameGapMs)),
    longTasks: rows.filter((r) => r.longestTaskMs > 0).length,
    longestTask: Math.max(...rows.map((r) => r.longestTaskMs)),
  };
  results[name] = summary;
  console.log(
    `[timing] ${name}: input → redrawn p50 ${fmt(summary.p50)}, p95 ${fmt(summary.p95)} over ${summary.n} steps ` +
      `(compute p50 ${fmt(summary.computeP50)}, colouring p50 ${fmt(summary.paintP50)}, main-thread draw p50 ${fmt(summary.drawP50)}, ` +
      `${summary.inline} of ${summary.n} steps on the main thread, the rest between threads p50 ${summary.inline === summary.n ? '-' : fmt(summary.betweenThreadsP50)}; ` +
      `longest frame gap ${fmt(summary.maxFrameGap)}; main-thread tasks over 50 ms: ${summary.longTasks === 0 ? 'none' : `${summary.longTasks} steps had one, longest ${fmt(summary.longestTask)}`})`,
  );
}

/** A page's errors make its timings meaningless: stop with them. */
function noProblems(name, problems) {
  if (problems.length) throw new Error(`${name}: the page reported ${problems.join('; ')}`);
}

/** Steps of the encodings view's L slider at L × D, timed after a warm-up, as a measure. */
function sliderRun({ L, D, key, warmUp, steps }) {
  const name = `L=${L} D=${D}`;
  return async (browser, base) => {
    const { page, context, problems } = await openPage(browser, `${base}#enc.L=${L}&enc.D=${D}`);
    await drawn(page, 'enc');
    await watchLongTasks(page);
    await slide(page, key, warmUp);
    report(name, await slide(page, key, steps));
    noProblems(name, problems);
    await context.close();
  };
}

const MEASURES = {
  async firstLoad(browser, base) {
    // A permalink to Encodings: the bare address opens the landing, which draws no plot.
    const { page, context, problems } = await openPage(browser, `${base}#view=encodings`);
    await drawn(page, 'enc');
    const t = await page.evaluate(() => ({
      firstPlot: globalThis.__poslabTimings[0].at,
      domContentLoaded: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
    }));
    results.firstLoad = t;
    console.log(
      `[timing] first load: DOMContentLoaded ${fmt(t.domContentLoaded)}, first plot drawn ${fmt(t.firstPlot)} after navigation start`,
    );
    noProblems('first load', problems);
    await context.close();
  },

  slider512: sliderRun({ L: 512, D: 512, key: 'ArrowRight', warmUp: 3, steps: 30 }),
  slider8192: sliderRun({ L: 8192, D: 1024, key: 'ArrowLeft', warmUp: 1, steps: 8 }),
};

let base = null;
const stop = await serve({ provide: (_key, url) => (base = url) });
const browser = await launch();
try {
  for (const measure of Object.values(MEASURES)) await measure(browser, base);
} finally {
  await browser.close();
  await stop();
  fs.writeFileSync(path.join(outDir, 'timings.json'), `${JSON.stringify(results, null, 2)}\n`);
}
