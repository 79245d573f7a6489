// The position lens in WebAssembly (`npm run bench:lens`): the whole lens (the repeated-sequence
// pass for the induction score, the text's traced pass with RoPE's bands and the logits, the
// shift check's logit pass, the two shuffle passes) of GPT-2 small and SmolLM2-135M's shape with
// random weights at T = 256, one thread, on the SIMD build: in Node, or with --chromium in
// Debian's Chromium (the page's engine), the repository served as static files. Figures for the
// record, not a test.
//   node bench/wasm/lens.mjs [--chromium] [T]
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../../tests/e2e/helpers/browser.js';
import { createGpt2Lab } from '../../web/src/core/poslab.js';
import { lensLines } from './lens-run.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const chromium = process.argv.includes('--chromium');
const T = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 256);

if (!chromium) {
  const lab = await createGpt2Lab({
    variant: 'simd',
    wasmBinary: readFileSync(path.join(root, 'build/wasm/simd/poslab-gpt2.wasm')),
  });
  for (const line of lensLines(lab, T)) console.log(`node: ${line}`);
} else {
  // The repository's files as they are: the JS API imports the build's module, which fetches
  // its .wasm beside it.
  const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };
  const server = http.createServer((req, res) => {
    const file = path.join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!file.startsWith(root)) return res.writeHead(403).end();
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'text/html' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.goto(`${base}/bench/wasm/lens-run.js`); // any page of the origin
    const lines = await page.evaluate(
      async ({ T }) => {
        const { createGpt2Lab } = await import('/web/src/core/poslab.js');
        const { lensLines } = await import('/bench/wasm/lens-run.js');
        return lensLines(await createGpt2Lab({ variant: 'simd' }), T);
      },
      { T },
    );
    for (const line of lines) console.log(`chromium ${browser.version()}: ${line}`);
  } finally {
    await browser.close();
    server.close();
  }
}
