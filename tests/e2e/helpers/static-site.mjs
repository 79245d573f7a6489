// Serves the built playground (dist/) on a loopback port with two files replaceable per test:
// index.html (the page as a build for another poslab.config.json writes it) and
// poslab.config.json (any text, or a 404). The page must come from a loopback address, as a
// preview server's does: Chromium refuses a page of unknown address a fetch to the local hub.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ISOLATION_HEADERS } from '../../../web/src/worker/thread-plan.js';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
};

/**
 * @param {string} dir the built site
 * @param {{ cors?: boolean | ((urlPath: string) => boolean), isolated?: boolean }} [o] cors: send
 *   Access-Control-Allow-Origin: * with every file (what a PosLab host serving embeds to other
 *   sites must do), or with the files whose URL path the function accepts; isolated: send the
 *   cross-origin isolation headers with every response, as vite preview does
 * @returns {Promise<{ url: string, set: (o: { html?: string, config?: string | null }) => void,
 *   close: () => Promise<void> }>} config: the text served as poslab.config.json (null: 404)
 */
export async function serveSite(dir, { cors = false, isolated = false } = {}) {
  let overrides = {};
  const server = http.createServer((req, res) => {
    if (isolated) for (const [name, value] of Object.entries(ISOLATION_HEADERS)) res.setHeader(name, value);
    const p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if ((p === '/' || p === '/index.html') && overrides.html !== undefined) {
      res.writeHead(200, { 'content-type': TYPES['.html'] }).end(overrides.html);
      return;
    }
    if (p === '/poslab.config.json' && overrides.config !== undefined) {
      if (overrides.config === null) res.writeHead(404).end('not found');
      else res.writeHead(200, { 'content-type': TYPES['.json'] }).end(overrides.config);
      return;
    }
    const file = path.join(dir, p === '/' ? 'index.html' : p);
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      ...((typeof cors === 'function' ? cors(p) : cors) ? { 'access-control-allow-origin': '*' } : {}),
    });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    set: (o) => (overrides = o),
    close: () => new Promise((r) => server.close(r)),
  };
}
