#!/usr/bin/env node
// The speed of position surgery in WebAssembly (`npm run bench:surgery`, docs/surgery.md): a
// 16-group band sweep and a layer sweep of SmolLM2-135M's shape with random weights at T = 256
// (targets 30 s and 60 s), and the full head sweep of the lab's shipped text model with its
// lens, on the Surgery view's defaults (the held-out tenth of the lab's sample, at most 4096
// bytes in windows of 256; target 10 s), each with the forward-equivalents its report counts.
// By default in Debian's Chromium on a cross-origin isolated page, the repository served as
// static files, as the page loads the modules: the language models on the threaded build at
// --threads N (2 unless given; 1: the single-threaded SIMD build), the lab's model on the
// training module (single-threaded: it has no threaded build). --node runs both in Node on the
// single-threaded SIMD builds. --variant simd|relaxed: the SIMD builds or their relaxed twins
// (f32x4.relaxed_madd), by default the relaxed ones where the engine has relaxed SIMD, as the
// page picks. Figures for the record, not a test.
//   node bench/surgery/speed.mjs [--node | --threads N] [--variant simd|relaxed] [T]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isolatedPage, loadLabInPage, root, withChromium } from '../wasm/chromium-page.js';
import { bestSimdVariant, printChromiumMachine, printMachine } from '../wasm/machine.js';
import { labLines, smolLines } from './speed-run.js';

const args = process.argv.slice(2);
const node = args.includes('--node');
const threadsAt = args.indexOf('--threads');
const threads = threadsAt >= 0 ? Number(args[threadsAt + 1]) : 2;
const T = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--threads') ?? 256);
const variantAt = args.indexOf('--variant');
if (!(Number.isInteger(threads) && threads >= 1)) throw new Error('--threads needs a whole number >= 1');
if (node && threadsAt >= 0) throw new Error('--node runs one thread: drop --threads');

// The Surgery view's defaults for the lab's model (web/src/state/registry.js): len and window.
const LAB_LEN = 4096;
const LAB_WINDOW = 256;
const CHECKPOINT = 'web/src/content/text-rope.safetensors';

// The held-out last tenth of the lab's sample (web/src/content/licences/index.js, its files in
// that order; web/src/worker/jobs/lab-rope.js's heldOutSample), read here since the module
// imports them with Vite's ?raw.
function heldOutSample() {
  const files = ['gpl-1', 'gpl-2.0', 'lgpl-2', 'lgpl-2.1', 'gfdl-1.2', 'gfdl-1.3', 'lgpl-3', 'gpl-3.0'];
  const text = files.map((f) => readFileSync(path.join(root, 'web/src/content/licences', `${f}.txt`), 'utf8')).join('');
  const bytes = new TextEncoder().encode(text);
  return bytes.subarray(bytes.length - Math.floor(bytes.length / 10));
}

const sample = heldOutSample();
if (node) {
  const { createGpt2Lab, createTrainLab } = await import('../../web/src/core/poslab.js');
  const read = (file) => readFileSync(path.join(root, file));
  await printMachine();
  const variant = variantAt >= 0 ? args[variantAt + 1] : bestSimdVariant();
  const dir = `build/wasm/${variant === 'relaxed' ? 'simd/relaxed' : variant}`;
  console.log(`build: ${variant}`);
  const lm = await createGpt2Lab({ variant, wasmBinary: read(`${dir}/poslab-lm.wasm`) });
  for (const l of smolLines(lm, T)) console.log(`node ${process.version}, one thread: ${l}`);
  const train = await createTrainLab({ variant, wasmBinary: read(`${dir}/poslab-train.wasm`) });
  for (const l of labLines(train, new Uint8Array(read(CHECKPOINT)), sample, LAB_LEN, LAB_WINDOW)) {
    console.log(`node ${process.version}, one thread: ${l}`);
  }
} else {
  await withChromium(async (browser, base) => {
    const on = threads === 1 ? 'one thread' : `${threads} threads (threaded build)`;
    const page = await isolatedPage(browser, base);
    const { peaks } = await printChromiumMachine(browser, page);
    const variant = variantAt >= 0 ? args[variantAt + 1] : peaks.relaxed === null ? 'simd' : 'relaxed';
    console.log(`build: ${variant}`);
    await loadLabInPage(page, threads, variant);
    const lines = await page.evaluate(async (T) => {
      const { smolLines } = await import('/bench/surgery/speed-run.js');
      return smolLines(globalThis.benchLab, T);
    }, T);
    for (const l of lines) console.log(`chromium ${browser.version()}, ${on}: ${l}`);
    const labPage = await isolatedPage(browser, base);
    const labResult = await labPage.evaluate(
      async ({ checkpoint, bytes, len, window, variant }) => {
        const { createTrainLab } = await import('/web/src/core/train.js');
        const { labLines } = await import('/bench/surgery/speed-run.js');
        const train = await createTrainLab({ variant });
        const weights = new Uint8Array(await (await fetch(`/${checkpoint}`)).arrayBuffer());
        return labLines(train, weights, Uint8Array.from(bytes), len, window);
      },
      { checkpoint: CHECKPOINT, bytes: Array.from(sample), len: LAB_LEN, window: LAB_WINDOW, variant },
    );
    for (const l of labResult) console.log(`chromium ${browser.version()}, one thread (training module): ${l}`);
  });
}
