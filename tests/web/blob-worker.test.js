// The Blob worker a cross-origin <poslab-figure> starts, run in Node with an EventTarget as its
// global scope: messages sent while PosLab's module loads reach it in order once it runs, and a
// module that cannot be loaded, or a CSP refusal, becomes a 'fatal' message saying what to change.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blobWorkerSource } from '../../web/src/embed/blob-worker.js';
import { describeLoadFailure, recordViolations } from '../../web/src/worker/load-failure.js';

let dir;
let posted;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-blob-worker-'));
  posted = [];
  const scope = new EventTarget();
  scope.postMessage = (data) => posted.push(data);
  // onmessage as a browser's event handler attribute: a listener, replaced when set again.
  let handler = null;
  Object.defineProperty(scope, 'onmessage', {
    get: () => handler,
    set(f) {
      if (handler) scope.removeEventListener('message', handler);
      handler = f;
      if (f) scope.addEventListener('message', f);
    },
  });
  globalThis.self = scope;
});
afterEach(() => {
  delete globalThis.self;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the Blob worker's code for `target` as a module, as the browser would. */
async function runBlobWorker(target) {
  const file = path.join(dir, `blob-${Math.random().toString(36).slice(2)}.mjs`);
  fs.writeFileSync(file, blobWorkerSource(target));
  await import(/* @vite-ignore */ pathToFileURL(file).href);
}

const until = async (check, ms = 5000) => {
  for (const t0 = Date.now(); !check();) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('Blob worker', () => {
  it('BlobWorker.MessagesSentWhileLoadingReachTheModuleInOrder', async () => {
    // A stand-in for the compute worker, which sets self.onmessage when it runs: it echoes.
    const worker = path.join(dir, 'echo.worker.mjs');
    fs.writeFileSync(worker, `self.onmessage = ({ data }) => self.postMessage({ echo: data });\n`);
    await runBlobWorker(pathToFileURL(worker).href);
    for (const id of [1, 2, 3]) self.dispatchEvent(new MessageEvent('message', { data: { id } }));
    await until(() => posted.length === 3);
    expect(posted).toEqual([{ echo: { id: 1 } }, { echo: { id: 2 } }, { echo: { id: 3 } }]);
    self.dispatchEvent(new MessageEvent('message', { data: { id: 4 } }));
    expect(posted.at(-1)).toEqual({ echo: { id: 4 } }); // the module's own handler, held no more
    expect(posted).toHaveLength(4);
  });

  it('BlobWorker.AModuleThatCannotLoadIsFatalAndNamesCors', async () => {
    const missing = pathToFileURL(path.join(dir, 'missing.worker.mjs')).href;
    await runBlobWorker(missing);
    await until(() => posted.length > 0);
    expect(posted).toHaveLength(1);
    expect(posted[0].type).toBe('fatal');
    expect(posted[0].message).toContain(`could not load PosLab's worker from ${missing}`);
    expect(posted[0].message).toContain('the PosLab host must send Access-Control-Allow-Origin');
  });

  it('BlobWorker.ACspRefusalIsFatalAndNamesTheDirective', async () => {
    const missing = 'http://poslab.invalid/assets/compute.worker.js';
    await runBlobWorker(missing);
    self.dispatchEvent(
      Object.assign(new Event('securitypolicyviolation'), { effectiveDirective: 'script-src', blockedURI: missing }),
    );
    await until(() => posted.length > 0);
    expect(posted[0]).toEqual({
      type: 'fatal',
      message: `this page's Content-Security-Policy refused PosLab's worker (${missing}): its script-src must allow http://poslab.invalid`,
    });
  });
});

describe('load failures', () => {
  const violation = (directive, blocked) => ({ directive, blocked });
  it('LoadFailure.NamesTheDirectiveAndTheSourceToAllow', () => {
    const what = 'the WebAssembly core';
    const url = 'https://poslab.example/assets/poslab.wasm';
    const say = (v) =>
      describeLoadFailure({ what, url, error: new TypeError('Failed to fetch'), foreign: true, violation: v });
    expect(say(violation('connect-src', url))).toBe(
      `this page's Content-Security-Policy refused the WebAssembly core (${url}): its connect-src must allow https://poslab.example`,
    );
    expect(say(violation('script-src', 'wasm-eval'))).toMatch(/its script-src must allow 'wasm-unsafe-eval'$/);
    expect(say(violation('worker-src', 'blob'))).toMatch(/its worker-src must allow blob:$/);
    expect(say(null)).toBe(
      `could not load the WebAssembly core from ${url} (Failed to fetch): the PosLab host must send Access-Control-Allow-Origin with its .js and .wasm files`,
    );
    // On PosLab's own origin CORS cannot be the cause, so it is not named.
    expect(describeLoadFailure({ what, url, error: new Error('HTTP 404'), foreign: false })).toBe(
      `could not load the WebAssembly core from ${url} (HTTP 404)`,
    );
  });

  it('LoadFailure.LatestWaitsForARefusalThatComesAfterTheError', async () => {
    const scope = new EventTarget();
    const violations = recordViolations(scope);
    const latest = violations.latest(5000);
    setTimeout(() =>
      scope.dispatchEvent(
        Object.assign(new Event('securitypolicyviolation'), { effectiveDirective: 'connect-src', blockedURI: 'x' }),
      ),
    );
    expect(await latest).toEqual({ directive: 'connect-src', blocked: 'x' });
    expect(await recordViolations(new EventTarget()).latest(10)).toBeNull();
  });
});
