// `npm run timing:hub [-- --model gpt2|smollm2-135m|smollm2-360m|qwen2.5-0.5b|qwen3-0.6b]`: a report, not a test. One
// click on a one-click model's button in Chromium against the local mock hub serving a
// checkpoint of its size as it ships (GPT-2 small: 124M parameters, F32, about 500 MB;
// SmolLM2, Qwen2.5: BF16; random weights written here once into test-output/e2e/hub-timing/), through
// the hub's redirect: download → Cache Storage → loaded into the wasm core → first forward
// drawn; then a second visit in a fresh browser on the same profile, from Cache Storage. Uses
// a persistent profile so Cache Storage is on disk as in a normal browser (an incognito
// context keeps it in memory). Prints the figures, the peak memory of the browser's processes
// during each visit, and writes test-output/e2e/hub-timings-MODEL.json. Builds dist/ first unless
// POSLAB_E2E_NO_BUILD=1.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { withHubConnectSrc } from '../../web/src/models/csp.js';
import { CHROMIUM_ARGS, chromiumPath, outDir } from './helpers/browser.js';
import { gpt2Layout, llamaLayout, sizeOf } from '../helpers/model-layouts.js';
import { layoutEntries, safetensorsHeader } from '../helpers/safetensors.js';
import { tinyTokenizerJson } from '../helpers/tiny-models.js';
import { startMockHub } from './helpers/mock-hub.mjs';
import { serveSite } from './helpers/static-site.mjs';

const root = new URL('../..', import.meta.url).pathname;
const SMALL = { vocab_size: 50257, n_positions: 1024, n_embd: 768, n_layer: 12, n_head: 12, layer_norm_epsilon: 1e-5 };
// SmolLM2's config.json keys as the Hub lists them (HuggingFaceTB/SmolLM2-135M, -360M).
const smollm2 = (hidden_size, num_hidden_layers, num_attention_heads, num_key_value_heads, intermediate_size) => ({
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  vocab_size: 49152,
  hidden_size,
  num_hidden_layers,
  num_attention_heads,
  num_key_value_heads,
  intermediate_size,
  max_position_embeddings: 8192,
  rope_theta: 100000,
  rms_norm_eps: 1e-5,
  tie_word_embeddings: true,
  hidden_act: 'silu',
  torch_dtype: 'bfloat16',
});
// id (the page's button) → repository, config, layout and the dtype the checkpoint ships in.
const MODELS = {
  gpt2: {
    repo: 'openai-community/gpt2',
    config: { model_type: 'gpt2', ...SMALL },
    layout: gpt2Layout(SMALL),
    dtype: 'F32',
  },
  'smollm2-135m': { repo: 'HuggingFaceTB/SmolLM2-135M', config: smollm2(576, 30, 9, 3, 1536), dtype: 'BF16' },
  'smollm2-360m': { repo: 'HuggingFaceTB/SmolLM2-360M', config: smollm2(960, 32, 15, 5, 2560), dtype: 'BF16' },
  // Qwen/Qwen2.5-0.5B's config.json keys: q/k/v biases, tied, θ = 10⁶, window unused.
  'qwen2.5-0.5b': {
    repo: 'Qwen/Qwen2.5-0.5B',
    config: {
      architectures: ['Qwen2ForCausalLM'],
      model_type: 'qwen2',
      vocab_size: 151936,
      hidden_size: 896,
      num_hidden_layers: 24,
      num_attention_heads: 14,
      num_key_value_heads: 2,
      intermediate_size: 4864,
      max_position_embeddings: 32768,
      max_window_layers: 24,
      rope_theta: 1000000,
      rms_norm_eps: 1e-6,
      sliding_window: 32768,
      use_sliding_window: false,
      tie_word_embeddings: true,
      hidden_act: 'silu',
      torch_dtype: 'bfloat16',
    },
    dtype: 'BF16',
  },
  // Qwen/Qwen3-0.6B's config.json keys: q/k norms, explicit head_dim, tied, θ = 10⁶.
  'qwen3-0.6b': {
    repo: 'Qwen/Qwen3-0.6B',
    config: {
      architectures: ['Qwen3ForCausalLM'],
      model_type: 'qwen3',
      vocab_size: 151936,
      hidden_size: 1024,
      head_dim: 128,
      num_hidden_layers: 28,
      num_attention_heads: 16,
      num_key_value_heads: 8,
      intermediate_size: 3072,
      max_position_embeddings: 40960,
      max_window_layers: 28,
      rope_theta: 1000000,
      rms_norm_eps: 1e-6,
      sliding_window: null,
      use_sliding_window: false,
      attention_bias: false,
      tie_word_embeddings: true,
      hidden_act: 'silu',
      torch_dtype: 'bfloat16',
    },
    dtype: 'BF16',
  },
};
const modelAt = process.argv.indexOf('--model');
const id = modelAt > 0 ? process.argv[modelAt + 1] : 'gpt2';
const chosen = MODELS[id];
if (!chosen) throw new Error(`--model ${id}: expected one of ${Object.keys(MODELS).join(', ')}`);
chosen.layout ??= llamaLayout(chosen.config);

/** float32 → bfloat16, rounded to nearest even (as toBfloat16, without a call per value). */
function bfloat16(values) {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const out = new Uint16Array(values.length);
  for (let i = 0; i < bits.length; i++) out[i] = (bits[i] + 0x7fff + ((bits[i] >>> 16) & 1)) >>> 16;
  return out;
}

/** Writes a random model.safetensors of the chosen model tensor by tensor, never whole in memory. */
function writeCheckpoint(file) {
  const { layout, dtype } = chosen;
  const fd = fs.openSync(file, 'w');
  // layoutEntries sizes 2-byte dtypes as F16 does; the header names the real one.
  const entries = layoutEntries(layout, dtype === 'F32' ? 'F32' : 'F16').map((e) => ({ ...e, dtype }));
  fs.writeSync(fd, safetensorsHeader(entries).prefix);
  let s = 0x9e3779b9; // xorshift32: uniform in ±0.04 (std ≈ 0.023, GPT-2's init scale)
  const chunk = new Float32Array(1 << 20);
  for (const { shape, role } of layout) {
    let left = sizeOf(shape);
    while (left > 0) {
      const n = Math.min(left, chunk.length);
      for (let i = 0; i < n; i++) {
        if (role === 'gain') chunk[i] = 1;
        else if (role === 'bias') chunk[i] = 0;
        else {
          s ^= s << 13;
          s ^= s >>> 17;
          s ^= s << 5;
          chunk[i] = ((s >>> 0) / 4294967296 - 0.5) * 0.08;
        }
      }
      if (dtype === 'F32') fs.writeSync(fd, new Uint8Array(chunk.buffer, 0, 4 * n));
      else fs.writeSync(fd, new Uint8Array(bfloat16(chunk.subarray(0, n)).buffer));
      left -= n;
    }
  }
  fs.closeSync(fd);
}

/** Resident memory of this process's descendants (the browser and its children), in bytes. */
function descendantsRss() {
  const parent = new Map();
  const rss = new Map();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(pid, fields[1]);
      rss.set(pid, Number(fields[21]) * 4096);
    } catch {
      // gone meanwhile
    }
  }
  const me = String(process.pid);
  let total = 0;
  for (const pid of parent.keys()) {
    for (let p = parent.get(pid); p && p !== '0'; p = parent.get(p)) {
      if (p === me) {
        total += rss.get(pid);
        break;
      }
    }
  }
  return total;
}

async function visit(profile, url, label) {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    args: CHROMIUM_ARGS, // as helpers/browser.js launches it (no sandbox as root, no background traffic)
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  await page.goto(url);
  if (!(await page.evaluate(() => crossOriginIsolated)))
    throw new Error(`${label}: the page is not cross-origin isolated`);
  await page.waitForSelector('#view-lm .hub[data-ready="true"]', { timeout: 120_000 });
  await page.waitForFunction(() => (globalThis.__poslabTimings ?? []).some((t) => t.view === 'lm'), null, {
    timeout: 120_000,
  });
  const draws = await page.evaluate(() => globalThis.__poslabTimings.filter((t) => t.view === 'lm').length);
  const before = descendantsRss();
  const samples = []; // [ms since the click, bytes]
  const t0 = Date.now();
  const sampler = setInterval(() => samples.push([Date.now() - t0, descendantsRss()]), 200);
  await page.click(`#view-lm .hub-load[data-model="${id}"]`);
  await page.waitForFunction(
    (n) =>
      globalThis.__poslabTimings.filter((t) => t.view === 'lm').length > n ||
      document.getElementById('c-hub-error').textContent,
    draws,
    { timeout: 600_000, polling: 100 },
  );
  const wallMs = Date.now() - t0;
  clearInterval(sampler);
  const error = await page.textContent('#c-hub-error');
  if (error) throw new Error(`${label}: ${error}`);
  const hub = await page.evaluate(() => globalThis.__poslabTimings.filter((t) => t.view === 'lm-hub').at(-1));
  const forward = await page.evaluate(() => globalThis.__poslabTimings.filter((t) => t.view === 'lm').at(-1));
  const line = await page.textContent('#view-lm .hub-progress-text');
  await context.close();
  if (problems.length) throw new Error(`${label}: the page reported errors:\n${problems.join('\n')}`);
  const peak = (from, to) =>
    Math.round(Math.max(0, ...samples.filter(([t]) => t >= from && t < to).map(([, b]) => b)) / 1e6);
  return {
    from: hub.from,
    bytes: hub.bytes,
    storedMs: Math.round(hub.storedMs),
    loadMs: Math.round(hub.loadMs),
    clickToLoadedMs: Math.round(hub.totalMs),
    firstForwardMs: Math.round(forward.forwardMs),
    clickToDrawnMs: wallMs,
    // Summed over the browser's processes (shared pages count once per process).
    rssBeforeClickMB: Math.round(before / 1e6),
    peakRssWhileStoringMB: peak(0, hub.storedMs),
    peakRssWhileLoadingMB: peak(hub.storedMs, Infinity),
    line,
  };
}

const dir = path.join(outDir, 'hub-timing', id);
fs.mkdirSync(dir, { recursive: true });
const model = path.join(dir, 'model.safetensors');
if (!fs.existsSync(model)) {
  const t = Date.now();
  writeCheckpoint(model);
  console.log(`[hub-timing] wrote ${model} (${fs.statSync(model).size} bytes) in ${Date.now() - t} ms`);
}
if (!process.env.POSLAB_E2E_NO_BUILD) await build({ configFile: path.join(root, 'vite.config.js'), logLevel: 'warn' });
const files = {
  'config.json': { body: JSON.stringify(chosen.config), type: 'application/json' },
  'model.safetensors': { path: model, redirect: true },
};
// A Llama's tokenizer.json: a small one (its ids fit the vocabulary); timing is the weights'.
if (id !== 'gpt2') files['tokenizer.json'] = { body: JSON.stringify(tinyTokenizerJson()), type: 'application/json' };
const mock = await startMockHub({ repos: { [chosen.repo]: files } });
// Isolated as vite preview serves it: the page runs the threaded build.
const site = await serveSite(path.join(root, 'dist'), { isolated: true });
const config = { hub: mock.hub, fileHosts: [mock.files] };
// The built page with the CSP a build for this config writes.
const META = /(http-equiv="Content-Security-Policy"\s+content=")([^"]+)/;
const sourcePolicy = META.exec(fs.readFileSync(path.join(root, 'web/index.html'), 'utf8'))[2];
site.set({
  html: fs
    .readFileSync(path.join(root, 'dist/index.html'), 'utf8')
    .replace(META, (_, open) => open + withHubConnectSrc(sourcePolicy, config)),
  config: JSON.stringify(config),
});
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-hub-timing-'));
const url = `${site.url}#view=lm`;
try {
  const first = await visit(profile, url, 'first visit');
  console.log(
    `[hub-timing] first visit (mock hub on loopback, via its redirect): ${(first.bytes / 1e6).toFixed(1)} MB ` +
      `downloaded into Cache Storage in ${first.storedMs} ms, read into the core in ${first.loadMs} ms; ` +
      `click → loaded ${first.clickToLoadedMs} ms, click → first forward drawn ${first.clickToDrawnMs} ms ` +
      `(forward ${first.firstForwardMs} ms); browser processes' RSS ${first.rssBeforeClickMB} MB before the click, ` +
      `peak ${first.peakRssWhileStoringMB} MB while storing, ${first.peakRssWhileLoadingMB} MB while loading`,
  );
  const second = await visit(profile, url, 'second visit');
  if (second.from !== 'cache') throw new Error(`second visit loaded from ${second.from}, not the cache`);
  console.log(
    `[hub-timing] second visit (a new browser on the same profile, from Cache Storage): looked up in ${second.storedMs} ms, ` +
      `read into the core in ${second.loadMs} ms; click → loaded ${second.clickToLoadedMs} ms, click → first forward drawn ` +
      `${second.clickToDrawnMs} ms; browser processes' RSS ${second.rssBeforeClickMB} MB before the click, ` +
      `peak ${second.peakRssWhileLoadingMB} MB while loading`,
  );
  const hubRequests = mock.requests.filter((r) => r.server === 'hub').length;
  const results = {
    model: id,
    checkpointBytes: fs.statSync(model).size,
    first,
    second,
    hubRequests,
    cpus: os.cpus().length,
  };
  fs.writeFileSync(path.join(outDir, `hub-timings-${id}.json`), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`[hub-timing] hub requests in all: ${hubRequests} (config.json and model.safetensors, first visit only)`);
} finally {
  fs.rmSync(profile, { recursive: true, force: true });
  await mock.close();
  await site.close();
}
