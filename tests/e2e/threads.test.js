// The threaded language-model build in Chromium (Node cannot run it: its glue starts Web
// Workers). The playground is served with COOP + COEP (vite.config.js), so it is cross-origin
// isolated: the Models view loads the threaded build and says on how many threads it runs; the
// build's copy in dist/wasm-threads/ gives the same logits and attention bits on 2 threads as
// on 1 (its pool profile recording the two-chunk batches), and refuses more threads than it
// started workers for.
import { describe, expect, it } from 'vitest';
import { KERNEL_LLAMA_CONFIG } from '../helpers/tiny-models.js';
import { browserForFile, drawn, openPage } from './helpers/browser.js';

const session = browserForFile();

describe('threads', () => {
  it('E2E.ModelsViewRunsOnEveryCoreOfTheIsolatedPlayground', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=lm`);
    await drawn(page, 'lm');
    const { isolated, cores } = await page.evaluate(() => ({
      isolated: crossOriginIsolated,
      cores: navigator.hardwareConcurrency,
    }));
    expect(isolated).toBe(true);
    const expected =
      cores > 1
        ? `${Math.min(cores, 8)} threads (cross-origin isolated page)`
        : 'one thread: this machine reports one core';
    expect(await page.textContent('#view-lm .lm-model-detail')).toContain(expected);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('E2E.ThreadedBuildGivesTheSameBitsOnTwoThreadsAsOnOne', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}index.html`);
    // A string, so that vitest leaves its import() alone (it rewrites those in functions).
    await page.evaluate(`import('./wasm-threads/poslab-lm.mjs').then((m) => (globalThis.createThreaded = m.default))`);
    const result = await page.evaluate(async (tiny) => {
      const script = new URL('wasm-threads/poslab-lm.mjs', location.href).href;
      const wasm = new Uint8Array(await (await fetch('wasm-threads/poslab-lm.wasm')).arrayBuffer());
      const create = globalThis.createThreaded;
      // One pthread worker: at most 2 threads.
      const m = await create({ wasmBinary: wasm, mainScriptUrlOrBlob: script, poslabWorkers: 1 });
      // Sizes past the kernels' thresholds, so products and attention really split (threads.hpp).
      const config = JSON.stringify(tiny);
      const { model } = m.llamaRandom(config, 7, 'F32');
      const ids = Int32Array.from({ length: 128 }, (_, i) => (i * 37 + 11) % 1000);
      const run = (threads) => {
        m.setThreads(threads);
        const out = model.forward(ids, {
          precision: 'float',
          topK: 1,
          trace: true,
          logits: true,
          lossByPosition: false,
        });
        return { logits: Array.from(out.logits.data), attention: Array.from(out.layers[1].attention.data) };
      };
      m.resetPoolProfile();
      const one = run(1);
      const onOne = m.poolProfile();
      m.resetPoolProfile();
      const two = run(2);
      const onTwo = m.poolProfile();
      const refused = m.setThreads(3);
      const counts = { max: m.maxThreads(), now: m.threads() };
      model.delete();
      return { one, two, refused, counts, onOne, onTwo };
    }, KERNEL_LLAMA_CONFIG);
    expect(result.counts).toEqual({ max: 2, now: 2 });
    expect(result.two.logits).toEqual(result.one.logits);
    expect(result.two.attention).toEqual(result.one.attention);
    // The pool's profile (base/threads.hpp): nothing on one thread; on two, every batch has two
    // chunks, the workers worked, and a batch lasts at least its slowest chunk.
    expect(result.onOne.batches).toBe(0);
    expect(result.onTwo.batches).toBeGreaterThan(0);
    expect(result.onTwo.chunks).toBe(2 * result.onTwo.batches);
    expect(result.onTwo.workerWorkMs).toBeGreaterThan(0);
    expect(result.onTwo.batchMs).toBeGreaterThanOrEqual(result.onTwo.slowestMs);
    expect(result.refused).toEqual({ error: 'threads must be between 1 and 2 here, got 3', field: 'threads' });
    expect(problems).toEqual([]);
    await context.close();
  });
});
