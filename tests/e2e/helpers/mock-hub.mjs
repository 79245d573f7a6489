// A local stand-in for the Hugging Face Hub: `{hub}/{repo}/resolve/main/{file}` on one
// loopback port, large files redirected (302, as the real Hub's resolve does) to a second
// port that serves the bytes, CORS on both. Each file can be made to misbehave: 404, an HTML
// page instead of the file, a body cut short, a download that stalls until the client goes,
// or a slow one (bytes per second). Records every request, so tests can tell a download from
// a load out of the browser's storage. Used by tests/e2e/hub.test.js and hub-timing.mjs.
import fs from 'node:fs';
import http from 'node:http';

/**
 * @typedef {{ body?: Uint8Array | string, path?: string, type?: string, redirect?: boolean }} MockFile
 *   body in memory or a file on disk (path); redirect: served through the file host
 * @typedef {'ok' | '404' | 'html' | 'truncate' | 'stall' | 'junk'} Behaviour
 */

/** Resolves when `res` can take more, or has closed (the listeners go either way). */
const drained = (res) =>
  new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });

const cors = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'content-length, etag, x-repo-commit, x-linked-size',
};

/**
 * @param {{ repos: Record<string, Record<string, MockFile>>, bytesPerSecond?: number }} o
 * @returns {Promise<{ hub: string, files: string, requests: { server: string, path: string }[],
 *   behave: (repo: string, file: string, b: Behaviour) => void, throttle: (bps: number | null) => void,
 *   close: () => Promise<void> }>}
 */
export async function startMockHub({ repos, bytesPerSecond = null }) {
  const behaviour = new Map(); // "repo/file" → Behaviour
  const requests = [];
  let rate = bytesPerSecond;
  const sockets = new Set();

  const sizeOf = (f) => (f.path ? fs.statSync(f.path).size : Buffer.byteLength(f.body));

  /** Sends a file's bytes (whole, cut short, stalled or slowed) with its headers. */
  async function send(res, f, b) {
    const size = sizeOf(f);
    res.writeHead(200, {
      ...cors,
      'content-type': f.type ?? 'application/octet-stream',
      'content-length': String(size),
      etag: `"${size}"`,
    });
    const limit = b === 'truncate' ? Math.floor(size * 0.4) : b === 'stall' ? Math.floor(size * 0.3) : size;
    const chunk = 256 * 1024;
    let at = 0;
    const fd = f.path ? fs.openSync(f.path, 'r') : null;
    const body = f.path ? null : Buffer.from(f.body);
    try {
      while (at < limit && !res.destroyed) {
        const n = Math.min(chunk, limit - at);
        let piece;
        if (fd !== null) {
          piece = Buffer.allocUnsafe(n);
          fs.readSync(fd, piece, 0, n, at);
        } else piece = body.subarray(at, at + n);
        at += n;
        if (!res.write(piece)) await drained(res);
        if (rate) await new Promise((r) => setTimeout(r, (1000 * n) / rate));
      }
    } finally {
      if (fd !== null) fs.closeSync(fd);
    }
    if (res.destroyed) return;
    if (b === 'truncate')
      res.destroy(); // the connection drops with bytes still owed
    else if (b === 'stall')
      res.once('close', () => {}); // holds until the client goes
    else res.end();
  }

  const files = http.createServer(async (req, res) => {
    requests.push({ server: 'files', path: req.url });
    const m = /^\/xet\/([^/]+\/[^/]+)\/(.+)$/.exec(decodeURIComponent(req.url));
    const f = m && repos[m[1]]?.[m[2]];
    if (!f) {
      res.writeHead(404, cors).end();
      return;
    }
    await send(res, f, behaviour.get(`${m[1]}/${m[2]}`) ?? 'ok');
  });

  const hubServer = http.createServer(async (req, res) => {
    requests.push({ server: 'hub', path: req.url });
    const m = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(decodeURIComponent(req.url.split('?')[0]));
    const key = m ? `${m[1]}/${m[2]}` : null;
    const f = m && repos[m[1]]?.[m[2]];
    const b = (key && behaviour.get(key)) ?? 'ok';
    if (!f || b === '404') {
      // The Hub's answer for a file a repository does not have.
      res.writeHead(404, { ...cors, 'content-type': 'application/json', 'x-error-code': 'EntryNotFound' });
      res.end(JSON.stringify({ error: 'Entry not found' }));
      return;
    }
    if (b === 'html') {
      res.writeHead(200, { ...cors, 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Sign in</title><p>Please sign in to continue.</p>');
      return;
    }
    if (b === 'junk') {
      // Not HTML and the right length for nothing: a body that is not a safetensors file.
      const junk = Buffer.alloc(4096, 0x41);
      res.writeHead(200, { ...cors, 'content-type': 'application/octet-stream', 'content-length': '4096' });
      res.end(junk);
      return;
    }
    if (f.redirect) {
      res.writeHead(302, {
        ...cors,
        location: `${filesUrl}/xet/${m[1]}/${m[2]}`,
        'x-linked-size': String(sizeOf(f)),
      });
      res.end();
      return;
    }
    await send(res, f, b);
  });

  for (const s of [files, hubServer]) {
    s.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
  }
  const listen = (s) =>
    new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${s.address().port}`)));
  const filesUrl = await listen(files);
  const hubUrl = await listen(hubServer);
  return {
    hub: hubUrl,
    files: filesUrl,
    requests,
    behave: (repo, file, b) => behaviour.set(`${repo}/${file}`, b),
    throttle: (bps) => (rate = bps),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all([files, hubServer].map((s) => new Promise((r) => s.close(r))));
    },
  };
}
