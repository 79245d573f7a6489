// <poslab-figure> on a page of another origin: PosLab's build served on one port with CORS
// headers, a host page on another including http://<PosLab>/poslab-figure.js under the CSP
// docs/playground.md recommends (examples/blog.html's, its https://poslab.example replaced by the
// PosLab server's origin). Both figures draw, with no console errors. Where the host's CSP or the
// PosLab host's headers refuse a part (the Blob worker, the worker module, the wasm's fetch or
// its compilation), the figures say which and what to change instead of waiting.
import http from 'node:http';
import path from 'node:path';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { browserForFile, openPage } from './helpers/browser.js';
import { serveSite } from './helpers/static-site.mjs';

const root = new URL('../..', import.meta.url).pathname;
const dist = path.join(root, process.env.POSLAB_DIST ?? 'dist');
const session = browserForFile();

const blogCsp = () =>
  /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(
    fs.readFileSync(path.join(root, 'public/examples/blog.html'), 'utf8'),
  )[1];

const hostPage = (poslab, csp) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>A blog on another host</title>
<script type="module" src="${poslab}poslab-figure.js"></script>
</head><body>
<poslab-figure id="a" plot="encodings.table" method="rope" len="48" dim="32"></poslab-figure>
<poslab-figure id="b" plot="similarity.matrix" len="40" dim="16" controls="0"></poslab-figure>
</body></html>`;

// The host: serves whatever page the test sets, from its own port (its own origin).
async function serveHost() {
  let page = '';
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    set: (html) => (page = html),
    close: () => new Promise((r) => server.close(r)),
  };
}

/** PosLab's build on one port and a host page on another, under `csp(PosLab's origin)`. */
async function twoSites({ cors = true, csp = (csp) => csp } = {}) {
  const poslab = await serveSite(dist, { cors });
  const host = await serveHost();
  expect(new URL(poslab.url).origin).not.toBe(new URL(host.url).origin);
  const origin = new URL(poslab.url).origin;
  host.set(hostPage(poslab.url, csp(blogCsp().replaceAll('https://poslab.example', origin), origin)));
  return {
    poslab,
    host,
    close: async () => {
      await host.close();
      await poslab.close();
    },
  };
}

// Distinct colours on the figure's visible canvases (inside its shadow root).
const figureColours = (page, id) =>
  page.evaluate((sel) => {
    const canvases = [...document.querySelector(sel).shadowRoot.querySelectorAll('canvas')].filter(
      (c) => c.offsetParent !== null,
    );
    return canvases.map((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < d.length && seen.size < 50; i += 4 * 7) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      return seen.size;
    });
  }, `#${id}`);

/** The figure's status line once it has something to say. */
async function figureMessage(page, id) {
  const handle = await page.waitForFunction(
    (sel) => document.querySelector(sel)?.shadowRoot?.querySelector('.view-status')?.textContent || null,
    `#${id}`,
    { timeout: 60_000 },
  );
  return handle.jsonValue();
}

// Each way a host page or a PosLab host can refuse a part, and what the figure must then say.
const directive = (name, value) => (csp) => csp.replace(new RegExp(`${name} [^;]*`), `${name} ${value}`);
const REFUSALS = [
  {
    name: 'a CSP without blob: workers',
    csp: directive('worker-src', "'self'"),
    says: /Content-Security-Policy refused PosLab's worker \(blob\): its worker-src must allow blob:/,
  },
  {
    name: "a CSP without PosLab's origin in connect-src",
    csp: directive('connect-src', "'self'"),
    says: (origin) =>
      new RegExp(
        `Content-Security-Policy refused the WebAssembly core \\(${origin}/\\S+\\.wasm\\): its connect-src must allow ${origin}`,
      ),
  },
  {
    name: "a CSP without 'wasm-unsafe-eval'",
    csp: (csp) => csp.replace(" 'wasm-unsafe-eval'", ''),
    says: /Content-Security-Policy refused the WebAssembly core \(wasm-eval\): its script-src must allow 'wasm-unsafe-eval'/,
  },
  {
    name: 'a PosLab host without CORS on the worker module',
    cors: (p) => !/compute\.worker-[^/]*\.js$/.test(p),
    says: (origin) =>
      new RegExp(
        `could not load PosLab's worker from ${origin}/\\S+compute\\.worker-.*must send Access-Control-Allow-Origin`,
      ),
  },
  {
    name: 'a PosLab host without CORS on the wasm',
    cors: (p) => !p.endsWith('.wasm'),
    says: (origin) =>
      new RegExp(
        `could not load the WebAssembly core from ${origin}/\\S+\\.wasm.*must send Access-Control-Allow-Origin`,
      ),
  },
];

describe('cross-origin embed', () => {
  it('Embed.CrossOriginFiguresDrawUnderTheRecommendedCsp', async () => {
    const sites = await twoSites();
    try {
      const { page, context, problems } = await openPage(session.browser, sites.host.url);
      for (const id of ['a', 'b']) {
        await page.waitForFunction(
          (sel) => document.querySelector(sel)?.shadowRoot?.querySelector('.poslab-embed[data-drawn]'),
          `#${id}`,
          { timeout: 120_000 },
        );
        const colours = await figureColours(page, id);
        expect(colours.length, `figure ${id} has a visible canvas`).toBeGreaterThan(0);
        for (const n of colours) expect(n, `figure ${id} is drawn`).toBeGreaterThan(2);
      }
      // A change of attributes computes again on the same (Blob) workers' scheduler.
      await page.evaluate(() => document.querySelector('#a').setAttribute('len', '24'));
      await page.waitForFunction(
        () => /24 × 32/.test(document.querySelector('#a').shadowRoot.querySelector('.fig-title')?.textContent),
        null,
        { timeout: 60_000 },
      );
      // The open-in-PosLab link points at PosLab's host, not the blog's.
      const link = await page.evaluate(
        () => document.querySelector('#a').shadowRoot.querySelector('.embed-foot a').href,
      );
      expect(link.startsWith(sites.poslab.url)).toBe(true);
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await sites.close();
    }
  });

  for (const refusal of REFUSALS) {
    it(`Embed.CrossOriginRefusalSaysWhatToChange: ${refusal.name}`, async () => {
      const sites = await twoSites(refusal);
      try {
        const { page, context, problems } = await openPage(session.browser, sites.host.url);
        const origin = new URL(sites.poslab.url).origin;
        const says = typeof refusal.says === 'function' ? refusal.says(origin) : refusal.says;
        for (const id of ['a', 'b']) expect(await figureMessage(page, id), `figure ${id}`).toMatch(says);
        // The browser reports the refusal itself; PosLab's code throws nothing uncaught.
        expect(problems.filter((p) => p.startsWith('pageerror'))).toEqual([]);
        await context.close();
      } finally {
        await sites.close();
      }
    });
  }
});
