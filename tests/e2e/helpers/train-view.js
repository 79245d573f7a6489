// The timing reports' common run of a lab view in Chromium: open it at `url`, on ONE worker
// unless told (as on this 2-core machine's share: the figure is worker-seconds), wait for its
// cached runs to be counted, press Train and wait for Done. Returns the page and the wall
// seconds.
import serve from '../global-setup.js';
import { launch, openPage } from './browser.js';

/** `prefix`: the view's class prefix ('lg', 'tl'): its progress line and Train button. */
export async function trainInView(browser, url, section, prefix, workers = 1) {
  const { page, problems } = await openPage(browser, url);
  // The page trains on hardwareConcurrency − 1 workers.
  await page.evaluate((n) => Object.defineProperty(navigator, 'hardwareConcurrency', { value: n }), workers + 1);
  const progress = `${section} .${prefix}-progress`;
  await page.waitForFunction((s) => /cached|restored/.test(document.querySelector(s)?.textContent ?? ''), progress);
  const t0 = Date.now();
  await page.click(`${section} .${prefix}-train`);
  await page.waitForFunction((s) => /^Done/.test(document.querySelector(s)?.textContent ?? ''), progress, {
    timeout: 3 * 3_600_000,
    polling: 1000,
  });
  return { page, problems, wall: (Date.now() - t0) / 1000 };
}

/** The value after `--name` on the command line, or undefined. */
export function cliArg(name) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** Serves dist/ as the e2e run does, launches Chromium, runs `report(browser, baseUrl)`, then closes both. */
export async function withServedBrowser(report) {
  let baseUrl;
  const stopServer = await serve({ provide: (_k, v) => (baseUrl = v) });
  const browser = await launch();
  try {
    await report(browser, baseUrl);
  } finally {
    await browser.close();
    await stopServer();
  }
}
