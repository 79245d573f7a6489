// <poslab-figure> on a page of another origin: PosLab's build served on one port with CORS
// headers, a host page on another including https://<PosLab>/poslab-figure.js under the CSP the
// README recommends (its https://poslab.example replaced by the PosLab server's origin). Both
// figures draw; under a CSP that refuses blob: workers the figure says why instead of waiting.
import http from 'node:http';
import path from 'node:path';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { browserForFile, openPage } from './helpers/browser.js';
import { serveSite } from './helpers/static-site.mjs';

const root = new URL('../..', import.meta.url).pathname;
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

describe('cross-origin embed', () => {
  it('Embed.CrossOriginFiguresDrawAndABlockedWorkerSaysWhy', async () => {
    const poslab = await serveSite(path.join(root, process.env.POSLAB_DIST ?? 'dist'), { cors: true });
    const host = await serveHost();
    expect(new URL(poslab.url).origin).not.toBe(new URL(host.url).origin);
    try {
      const origin = new URL(poslab.url).origin;
      const csp = blogCsp().replaceAll('https://poslab.example', origin);
      host.set(hostPage(poslab.url, csp));
      const { page, context, problems } = await openPage(session.browser, host.url);
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
      // The open-in-PosLab link points at PosLab's host, not the blog's.
      const link = await page.evaluate(
        () => document.querySelector('#a').shadowRoot.querySelector('.embed-foot a').href,
      );
      expect(link.startsWith(poslab.url)).toBe(true);
      expect(problems).toEqual([]);
      await context.close();

      // The same page under a CSP without blob: workers: a message, not a spinner.
      host.set(hostPage(poslab.url, csp.replace(/worker-src [^;]*/, "worker-src 'self'")));
      const blocked = await openPage(session.browser, host.url);
      await blocked.page.waitForFunction(
        () => /worker/.test(document.querySelector('#a')?.shadowRoot?.querySelector('.view-status')?.textContent ?? ''),
        null,
        { timeout: 60_000 },
      );
      const message = await blocked.page.evaluate(
        () => document.querySelector('#a').shadowRoot.querySelector('.view-status').textContent,
      );
      expect(message).toMatch(/Content-Security-Policy/);
      expect(message).toMatch(/blob:/);
      await blocked.context.close();
    } finally {
      await host.close();
      await poslab.close();
    }
  });
});
