// The repository served as static files to Debian's Chromium, for the benchmarks that run in
// the page's engine (lens.mjs, ort_llama.mjs). The server sends the playground's isolation
// headers (COOP + COEP, web/src/worker/thread-plan.js), so a page is cross-origin isolated and may run the
// threaded language-model build and onnxruntime-web's threads.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../../tests/e2e/helpers/browser.js';
import { ISOLATION_HEADERS } from '../../web/src/worker/thread-plan.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const TYPES = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};

/**
 * Runs fn(browser, base) with the repository served at `base` and Chromium launched; both are
 * closed after, whatever happens. Pages opened on `${base}/bench/wasm/blank.html` are isolated.
 */
export async function withChromium(fn) {
  const server = http.createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (pathname === '/bench/wasm/blank.html') {
      return res
        .writeHead(200, { 'content-type': 'text/html', ...ISOLATION_HEADERS })
        .end('<!doctype html><title>bench</title>');
    }
    const file = path.join(root, pathname);
    if (!file.startsWith(root)) return res.writeHead(403).end();
    try {
      const body = readFileSync(file);
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        ...ISOLATION_HEADERS,
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await launch();
  try {
    return await fn(browser, base);
  } finally {
    await browser.close();
    server.close();
  }
}

/** A fresh isolated page (its own wasm instances and workers). */
export async function isolatedPage(browser, base) {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await page.goto(`${base}/bench/wasm/blank.html`);
  if (!(await page.evaluate(() => crossOriginIsolated))) throw new Error('the bench page is not cross-origin isolated');
  return page;
}

/**
 * Code for page.evaluate: the language-model API on `threads` threads — the single-threaded
 * SIMD build for 1, the threaded build above — as `globalThis.benchLab`. variant: 'simd', or
 * 'relaxed' for either build's relaxed twin (f32x4.relaxed_madd; Chromium has relaxed SIMD).
 */
export async function loadLabInPage(page, threads, variant = 'simd') {
  await page.evaluate(
    async ({ threads, variant }) => {
      const { bindLm } = await import('/web/src/core/lm.js');
      if (threads === 1) {
        const { loadModule } = await import('/web/src/core/load.js');
        globalThis.benchLab = bindLm(await loadModule({ variant }, 'poslab-lm'));
        return;
      }
      const { instantiateThreaded } = await import('/web/src/core/threaded-module.js');
      const dir = variant === 'relaxed' ? '/build/wasm/threads/relaxed' : '/build/wasm/threads';
      const wasm = new Uint8Array(await (await fetch(`${dir}/poslab-lm.wasm`)).arrayBuffer());
      globalThis.benchLab = bindLm(
        await instantiateThreaded(new URL(`${dir}/poslab-lm.mjs`, location.href).href, wasm, threads),
      );
    },
    { threads, variant },
  );
}
