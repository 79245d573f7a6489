// Where the calling thread's time goes in a threaded forward (`npm run profile:lm`): SmolLM2-135M's
// shape (random weights) at T tokens on N threads in a cross-origin isolated Chromium page,
// sampled by the DevTools protocol's CPU profiler on the page's main thread, the thread that
// calls the model and runs every chunk 0 and everything between parallel_for batches. The
// samples' wasm functions are named through the build's symbol map (poslab-lm.mjs.symbols) and
// their self time summed; the top rows are printed as ms per forward. What is not a product or
// attention here runs on one thread while the others wait (bench:ort-llama's pool profile says
// how much).
//
// Options: --t 128   --threads 2   --runs 3   --variant simd|relaxed   --top 20
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isolatedPage, loadLabInPage, root, withChromium } from './chromium-page.js';

function parseArgs(argv) {
  const args = { t: 128, threads: 2, runs: 3, variant: 'simd', top: 20 };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${key} needs a value`);
    if (key === '--variant') args.variant = value;
    else if (['--t', '--threads', '--runs', '--top'].includes(key)) args[key.slice(2)] = Number(value);
    else throw new Error(`unknown option ${key} (expected --t, --threads, --runs, --variant, --top)`);
  }
  return args;
}

// wasm function index → name, from Emscripten's --emit-symbol-map ("index:name" lines).
function symbolMap(args) {
  const dir = args.variant === 'relaxed' ? 'relaxed/' : '';
  const build = args.threads > 1 ? 'threads' : 'simd';
  const file = path.join(root, 'build/wasm', build, `${dir}poslab-lm.mjs.symbols`);
  const names = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) names.set(Number(line.slice(0, colon)), line.slice(colon + 1));
  }
  return names;
}

// Self time per function name (ms), summed over the profile's samples.
function selfTimes(profile, names) {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
  const totals = new Map();
  profile.samples.forEach((id, i) => {
    let name = byNode.get(id) || '(anonymous)';
    const wasm = /^\$?(?:wasm-function\[)?(\d+)\]?$/.exec(name);
    if (wasm) name = names.get(Number(wasm[1])) ?? name;
    totals.set(name, (totals.get(name) ?? 0) + profile.timeDeltas[i] / 1e3);
  });
  return [...totals].sort((a, b) => b[1] - a[1]);
}

// Emscripten's symbol map keeps the mangled-then-escaped C++ signature; the name up to its
// argument list is enough to read.
const readable = (name) =>
  name
    .replace(/\\([0-9a-f]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\(anonymous namespace\)/g, '{anonymous}')
    .replace(/(.)\(.*$/, '$1')
    .slice(0, 70);

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const names = symbolMap(args);
  await withChromium(async (browser, base) => {
    const page = await isolatedPage(browser, base);
    await loadLabInPage(page, args.threads, args.variant);
    await page.evaluate((T) => {
      const model = globalThis.benchLab.llamaRandom({ preset: 'smollm2-135m', seed: 1 });
      const ids = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % model.config.vocab_size);
      globalThis.profiled = () => model.forward(ids, { trace: false, topK: 1 });
      globalThis.profiled(); // warm-up
    }, args.t);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    const wall = await page.evaluate((runs) => {
      const t0 = performance.now();
      for (let r = 0; r < runs; r++) globalThis.profiled();
      return (performance.now() - t0) / runs;
    }, args.runs);
    const { profile } = await cdp.send('Profiler.stop');
    console.log(
      `SmolLM2-135M shape, T = ${args.t}, ${args.threads} thread(s), ${args.variant} build: ` +
        `${wall.toFixed(1)} ms a forward; the calling thread's self time, ms per forward:`,
    );
    for (const [name, ms] of selfTimes(profile, names).slice(0, args.top)) {
      console.log(`${(ms / args.runs).toFixed(1).padStart(8)}  ${readable(name)}`);
    }
  });
}

await main();
