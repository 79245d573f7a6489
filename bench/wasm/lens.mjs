// The position lens in WebAssembly (`npm run bench:lens`): the whole lens (the repeated-sequence
// pass for the induction score, the text's traced pass with RoPE's bands and the logits, the
// shift check's logit pass, the two shuffle passes) of GPT-2 small and SmolLM2-135M's shape with
// random weights at T = 256 on the SIMD build: in Node (one thread), or with --chromium in
// Debian's Chromium (the page's engine) on a cross-origin isolated page, the repository served
// as static files, with --threads N on the threaded build (N = 1: the single-threaded build).
// --variant simd|relaxed: the SIMD builds or their relaxed twins (f32x4.relaxed_madd), by default
// the relaxed ones where the engine has relaxed SIMD, as the page picks. Figures for the
// record, not a test.
//   node bench/wasm/lens.mjs [--chromium [--threads N]] [--variant simd|relaxed] [T]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createGpt2Lab } from '../../web/src/core/poslab.js';
import { isolatedPage, loadLabInPage, root, withChromium } from './chromium-page.js';
import { lensLines } from './lens-run.js';
import { bestSimdVariant, printChromiumMachine, printMachine } from './machine.js';

const args = process.argv.slice(2);
const chromium = args.includes('--chromium');
const threadsAt = args.indexOf('--threads');
const threads = threadsAt >= 0 ? Number(args[threadsAt + 1]) : 1;
const T = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--threads') ?? 256);
const variantAt = args.indexOf('--variant');
if (!(Number.isInteger(threads) && threads >= 1)) throw new Error('--threads needs a whole number >= 1');
if (threads > 1 && !chromium) throw new Error('--threads above 1 runs in Chromium: add --chromium');

if (!chromium) {
  await printMachine();
  const variant = variantAt >= 0 ? args[variantAt + 1] : bestSimdVariant();
  const dir = variant === 'relaxed' ? 'simd/relaxed' : variant;
  const lab = await createGpt2Lab({
    variant,
    wasmBinary: readFileSync(path.join(root, 'build/wasm', dir, 'poslab-lm.wasm')),
  });
  for (const line of lensLines(lab, T)) console.log(`node, ${variant} build: ${line}`);
} else {
  await withChromium(async (browser, base) => {
    const page = await isolatedPage(browser, base);
    const { peaks } = await printChromiumMachine(browser, page);
    const variant = variantAt >= 0 ? args[variantAt + 1] : peaks.relaxed === null ? 'simd' : 'relaxed';
    await loadLabInPage(page, threads, variant);
    const lines = await page.evaluate(async (T) => {
      const { lensLines } = await import('/bench/wasm/lens-run.js');
      return lensLines(globalThis.benchLab, T);
    }, T);
    const on = `${threads === 1 ? 'one thread' : `${threads} threads (threaded build)`}, ${variant} build`;
    for (const line of lines) console.log(`chromium ${browser.version()}, ${on}: ${line}`);
  });
}
