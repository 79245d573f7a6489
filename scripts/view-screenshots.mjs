// Screenshots of every view of the playground, at a desktop (1280 × 900) and a phone (390 × 844)
// viewport, as JPEGs named <view>-<width>.jpg: the before/after pictures of issue 27.
//
// Usage (after `. scripts/env.sh`; needs the wasm build, build/wasm/, of the tree it serves):
//   node scripts/view-screenshots.mjs <out-dir> [--root <repo>] [--base <url>] [--no-build]
//        [--views a,b,...] [--widths 1280,390] [--quality 45] [--max-height 4000]
//
//   <out-dir>      where the JPEGs go (made if missing)
//   --root <repo>  the tree whose page is shot (default: this one). Its own
//                  tests/e2e/global-setup.js builds it (vite build → <repo>/dist) and serves it
//                  with vite preview, and its own web/src/state/registry.js gives the views, so
//                  an older checkout (a git worktree) is shot with its own view list.
//   --base <url>   shoot a page already served there instead (views still from --root's registry)
//   --no-build     serve <repo>/dist as it is (sets POSLAB_E2E_NO_BUILD for global-setup)
//   --views        only these views (registry names); --widths: only these of 1280 and 390
//
// Examples:
//   node scripts/view-screenshots.mjs docs/images/views/after
//   node scripts/view-screenshots.mjs docs/images/views/before --root /tmp/poslab-before
//
// Each view is opened by its link (#view=<name>) in a fresh page of Debian's Chromium (the e2e
// suite's launch and openPage, tests/e2e/helpers/browser.js). For a view with a URL prefix the
// script waits until the view has drawn (window.__poslabTimings, the suite's `drawn`); a view
// that draws only after a Run/Train click (Length generalisation) gets a few seconds and is shot
// as it opens; views without a prefix (Gallery, Benchmarks) wait until their canvases and
// images have content. The page is then scrolled through once (figures drawn on scroll) and shot
// full height, cut at --max-height CSS pixels.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { drawn, launch, openPage, PHONE } from '../tests/e2e/helpers/browser.js';

const here = path.resolve(new URL('..', import.meta.url).pathname);

function parseArgs(argv) {
  const opts = {
    root: here,
    base: null,
    build: true,
    views: null,
    widths: [1280, PHONE.width],
    quality: 45,
    maxHeight: 4000,
  };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--root') opts.root = path.resolve(value());
    else if (a === '--base') opts.base = value();
    else if (a === '--no-build') opts.build = false;
    else if (a === '--views') opts.views = value().split(',').filter(Boolean);
    else if (a === '--widths') opts.widths = value().split(',').map(Number);
    else if (a === '--quality') opts.quality = Number(value());
    else if (a === '--max-height') opts.maxHeight = Number(value());
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else rest.push(a);
  }
  if (rest.length !== 1)
    throw new Error('usage: node scripts/view-screenshots.mjs <out-dir> [--root <repo>] [--base <url>] [--no-build]');
  opts.out = path.resolve(rest[0]);
  if (opts.base && !opts.base.endsWith('/')) opts.base += '/';
  return opts;
}

const SIZES = { 1280: { width: 1280, height: 900 }, [PHONE.width]: PHONE };

/** Serves `root`'s playground with that tree's own e2e global setup: { base, close }. */
async function serve(root, build) {
  if (!build) process.env.POSLAB_E2E_NO_BUILD = '1';
  process.chdir(root); // the tree's vite.config.js names its root (web/) relative to the working directory
  const { default: setup } = await import(pathToFileURL(path.join(root, 'tests/e2e/global-setup.js')).href);
  let base = null;
  const close = await setup({ provide: (key, v) => key === 'baseUrl' && (base = v) });
  return { base, close };
}

/** True once the core is loaded and the view `prefix` has drawn; false for a view that waits for a Run. */
async function waitDrawn(page, section, prefix) {
  const needsRun = page
    .waitForFunction(
      (s) =>
        [...document.querySelectorAll(`${s} button`)].some(
          (b) => b.offsetParent !== null && /^\s*(run|train)\b/i.test(b.textContent),
        ),
      section,
      { timeout: 90_000 },
    )
    .then(() => page.waitForTimeout(5_000))
    .then(() => false);
  const done = drawn(page, prefix, 1, { timeout: 90_000 }).then(() => true);
  return Promise.race([done, needsRun]).catch(() => false);
}

/** Waits (up to 10 s) until the section's visible canvases are not blank and its images have loaded. */
async function waitContent(page, section) {
  await page
    .waitForFunction(
      (s) => {
        const el = document.querySelector(s);
        if (!el || el.offsetParent === null) return false;
        const canvases = [...el.querySelectorAll('canvas')].filter((c) => c.offsetParent !== null && c.width > 0);
        const blank = canvases.some((c) => {
          const d = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data;
          if (!d) return false;
          const seen = new Set();
          for (let i = 0; i < d.length && seen.size < 3; i += 4 * 7)
            seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
          return seen.size < 3;
        });
        const images = [...el.querySelectorAll('img')].every((img) => img.complete);
        return !blank && images && el.textContent.trim().length > 0;
      },
      section,
      { timeout: 10_000, polling: 500 },
    )
    .catch(() => {});
}

/** Scrolls to the bottom and back in viewport steps, so figures drawn when seen get drawn. */
async function scrollThrough(page) {
  const { total, step } = await page.evaluate(() => ({
    total: document.scrollingElement.scrollHeight,
    step: window.innerHeight,
  }));
  for (let y = 0; y < Math.min(total, 6000); y += step) {
    await page.evaluate((top) => window.scrollTo(0, top), y);
    await page.waitForTimeout(150);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(800);
}

async function shoot(browser, base, view, size, opts) {
  const section = `#view-${view.name}`;
  const { page, context, problems } = await openPage(browser, `${base}#view=${view.name}`, size);
  const t0 = Date.now();
  let state;
  try {
    await page.waitForSelector(section, { state: 'visible', timeout: 60_000 });
    if (view.prefix) state = (await waitDrawn(page, section, view.prefix)) ? 'drawn' : 'not drawn (waits for a Run)';
    else state = 'content';
    if (state !== 'not drawn (waits for a Run)') await waitContent(page, section);
    await page.evaluate(() => document.fonts.ready);
    await scrollThrough(page);
    const height = await page.evaluate(() => document.scrollingElement.scrollHeight);
    const file = path.join(opts.out, `${view.name}-${size.width}.jpg`);
    await page.screenshot({
      path: file,
      type: 'jpeg',
      quality: opts.quality,
      fullPage: true,
      clip: { x: 0, y: 0, width: size.width, height: Math.min(height, opts.maxHeight) },
    });
    const kb = (fs.statSync(file).size / 1024).toFixed(0);
    console.log(`${file}: ${state}, ${((Date.now() - t0) / 1000).toFixed(1)} s, page ${height} px, ${kb} KB`);
    if (problems.length) console.log(`  problems: ${problems.slice(0, 3).join(' | ')}`);
  } finally {
    await context.close();
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { VIEWS } = await import(pathToFileURL(path.join(opts.root, 'web/src/state/registry.js')).href);
  const views = VIEWS.filter((v) => !opts.views || opts.views.includes(v.name));
  if (opts.views) for (const n of opts.views) if (!views.some((v) => v.name === n)) throw new Error(`no view ${n}`);
  const sizes = opts.widths.map((w) => {
    if (!SIZES[w]) throw new Error(`width ${w}: one of ${Object.keys(SIZES).join(', ')}`);
    return SIZES[w];
  });
  fs.mkdirSync(opts.out, { recursive: true });
  const served = opts.base ? { base: opts.base, close: async () => {} } : await serve(opts.root, opts.build);
  const browser = await launch();
  try {
    console.log(`${views.length} views × ${sizes.length} sizes from ${served.base}`);
    for (const view of views) for (const size of sizes) await shoot(browser, served.base, view, size, opts);
  } finally {
    await browser.close();
    await served.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
