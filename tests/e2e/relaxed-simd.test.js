// The relaxed SIMD twin in Chromium (relaxed SIMD on by default there): the playground's probe
// passes, its compute worker fetches the relaxed core (byte for byte build/wasm/simd/relaxed's,
// not the SIMD build's) and reports its target, and the relaxed language-model module, run by
// Chromium's engine with its products on f32x4.relaxed_madd, gives float logits and attention
// within the written policy of its own double path (tests/wasm/helpers/compare.js: logits 1e-4
// of max |logit|, attention 1e-5), on one thread and on two alike.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RELAXED_PROBE_BYTES } from '../../web/src/core/simd-build.js';
import { viewNamed } from '../../web/src/state/registry.js';
import { KERNEL_LLAMA_CONFIG } from '../helpers/tiny-models.js';
import { browserForFile, drawn, openPage } from './helpers/browser.js';

const session = browserForFile();
const root = path.resolve(new URL('../..', import.meta.url).pathname);
const build = (variant) => fs.readFileSync(path.join(root, 'build/wasm', variant, 'poslab.wasm'));

describe('relaxed SIMD', () => {
  it('E2E.PageLoadsTheRelaxedCoreWhereChromiumHasRelaxedSimd', async () => {
    const wasm = [];
    const { page, context, problems } = await openPage(session.browser, 'about:blank');
    context.on('response', async (r) => {
      if (r.url().endsWith('.wasm')) wasm.push(Buffer.from(await r.body()));
    });
    await page.goto(`${session.base}#view=encodings`);
    await drawn(page, viewNamed('encodings').prefix);
    expect(await page.evaluate((bytes) => WebAssembly.validate(new Uint8Array(bytes)), [...RELAXED_PROBE_BYTES])).toBe(
      true,
    );
    const status = page.locator('#core-status');
    await expect.poll(() => status.textContent()).toMatch(/core: ready \(WebAssembly, relaxed SIMD\)/);
    expect(await status.getAttribute('title')).toBe('Highway target: WASM+RELAXED');
    const [relaxed, simd] = [build('simd/relaxed'), build('simd')];
    await expect
      .poll(() => wasm.some((b) => b.equals(relaxed)), { message: 'the relaxed core was fetched' })
      .toBe(true);
    expect(
      wasm.some((b) => b.equals(simd)),
      'the SIMD core was fetched too',
    ).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('E2E.RelaxedLanguageModelMatchesItsDoublePathInChromium', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}index.html`);
    // A string, so that vitest leaves its import() alone (it rewrites those in functions).
    await page.evaluate(
      `import('./wasm-threads/relaxed/poslab-lm.mjs').then((m) => (globalThis.createRelaxed = m.default))`,
    );
    const result = await page.evaluate(async (tiny) => {
      const script = new URL('wasm-threads/relaxed/poslab-lm.mjs', location.href).href;
      const wasm = new Uint8Array(await (await fetch('wasm-threads/relaxed/poslab-lm.wasm')).arrayBuffer());
      const m = await globalThis.createRelaxed({ wasmBinary: wasm, mainScriptUrlOrBlob: script, poslabWorkers: 1 });
      // Past the kernels' thresholds, so the packed GEMM and attention's blocks run.
      const config = JSON.stringify(tiny);
      const { model } = m.llamaRandom(config, 7, 'F32');
      const ids = Int32Array.from({ length: 128 }, (_, i) => (i * 37 + 11) % 1000);
      const run = (precision, threads) => {
        m.setThreads(threads);
        const out = model.forward(ids, { precision, topK: 1, trace: true, logits: true, lossByPosition: false });
        return { logits: Array.from(out.logits.data), attention: Array.from(out.layers[1].attention.data) };
      };
      const out = { float1: run('float', 1), float2: run('float', 2), double: run('double', 1) };
      model.delete();
      return out;
    }, KERNEL_LLAMA_CONFIG);
    const worst = (a, b) => a.reduce((w, x, i) => Math.max(w, Math.abs(x - b[i])), 0);
    const maxAbs = (a) => a.reduce((w, x) => Math.max(w, Math.abs(x)), 0);
    const { float1, float2, double } = result;
    expect(float1.logits.length).toBeGreaterThan(0);
    expect(worst(float1.logits, double.logits)).toBeLessThanOrEqual(1e-4 * maxAbs(double.logits));
    expect(worst(float1.attention, double.attention)).toBeLessThanOrEqual(1e-5);
    expect(float2.logits).toEqual(float1.logits);
    expect(problems).toEqual([]);
    await context.close();
  });
});
