// Launches Debian's Chromium headless (no browser download) and opens pages that record
// console errors, page errors and failed requests, which every test then asserts are none.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';

export const outDir = path.resolve(new URL('../../..', import.meta.url).pathname, 'test-output/e2e');
fs.mkdirSync(outDir, { recursive: true });

// Without the networking flags Chromium floods a closed network with refused connections.
// The timing scripts launch their own persistent contexts with these same flags.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Debian's Chromium, or CHROMIUM_PATH; throws saying how to get it when it is missing. */
export function chromiumPath() {
  const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!fs.existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  }
  return executablePath;
}

export async function launch() {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}

/** One browser for a test file's tests and the served playground's address: { browser, base }. */
export function browserForFile() {
  const session = {};
  beforeAll(async () => {
    session.base = inject('baseUrl');
    session.browser = await launch();
  });
  afterAll(() => session.browser?.close());
  return session;
}

/** A page plus the list of problems it reported. */
export async function openPage(browser, url, { width = 1280, height = 900, colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme, acceptDownloads: true });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    d.dismiss();
  });
  await page.goto(url);
  return { page, context, problems };
}

/**
 * Resolves once the core is loaded and `view` (its key prefix) has drawn n results; fails
 * after `timeout` ms.
 */
export async function drawn(page, prefix, n = 1, { timeout = 120_000 } = {}) {
  await page.waitForFunction(
    ([p, k]) =>
      document.documentElement.dataset.ready === 'true' &&
      (globalThis.__poslabTimings ?? []).filter((t) => t.view === p).length >= k,
    [prefix, n],
    { timeout },
  );
}

/**
 * The page's URL once its decoded hash contains every one of `parts`: the playground rewrites
 * the address bar once the settings have stayed still for a moment (state/url.js), not at once.
 */
export async function urlWith(page, ...parts) {
  await page.waitForFunction(
    (ps) => {
      const hash = decodeURIComponent(window.location.hash);
      return ps.every((p) => hash.includes(p));
    },
    parts,
    { timeout: 10_000 },
  );
  return page.url();
}

export const drawCount = (page, prefix) =>
  page.evaluate((p) => (globalThis.__poslabTimings ?? []).filter((t) => t.view === p).length, prefix);

/** Number of distinct colours on each visible canvas of a section (1 = blank). */
export function canvasColours(page, selector) {
  return page.evaluate((sel) => {
    return [...document.querySelectorAll(`${sel} canvas`)]
      .filter((c) => c.offsetParent !== null)
      .map((c) => {
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const seen = new Set();
        for (let i = 0; i < d.length && seen.size < 50; i += 4 * 7) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
        return seen.size;
      });
  }, selector);
}

/** A cheap fingerprint of a canvas's pixels (selector: Playwright syntax, first match). */
export function canvasHash(page, selector) {
  return page
    .locator(selector)
    .first()
    .evaluate((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let h = 2166136261;
      for (let i = 0; i < d.length; i += 3) h = Math.imul(h ^ d[i], 16777619);
      return `${c.width}x${c.height}:${h >>> 0}`;
    });
}

/** A phone's viewport (an iPhone 12-class screen, CSS pixels). */
export const PHONE = { width: 390, height: 844 };

/** How far the page scrolls sideways, in CSS pixels (0 or 1 when it fits its viewport). */
export const sidewaysScroll = (page) => page.evaluate(() => document.scrollingElement.scrollWidth - window.innerWidth);

/** The inputs and selects of a section's controls that have neither a label nor an aria-label. */
export const unlabelledControls = (page, section) =>
  page.evaluate(
    (s) =>
      [...document.querySelectorAll(`${s} .controls input, ${s} .controls select`)]
        .filter((el) => !el.labels?.length && !el.getAttribute('aria-label'))
        .map((el) => el.id || el.outerHTML.slice(0, 60)),
    section,
  );
