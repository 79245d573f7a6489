// The Models view's one-click hub models in Chromium against a local mock hub (helpers/
// mock-hub.mjs) with tiny checkpoints under the real repositories' paths: GPT-2 small
// downloaded through a redirect to another port with a progress bar, stored, loaded and run,
// then loaded from Cache Storage with no request to the hub, offline too, and deleted;
// Pythia (GPT-NeoX) downloaded, stored and run with its own tokenizer.json; 404, an
// HTML page, junk, a body cut short and Cancel each leave a message beside the buttons,
// nothing stored and the model on show; a missing or invalid poslab.config.json falls back to
// the default hub with a note; a hub or redirect the page's CSP does not allow is named. The
// site sends the cross-origin isolation headers, as vite preview does: every download runs
// under COEP (the threaded build's condition).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsp, withHubConnectSrc } from '../../web/src/models/csp.js';
import { drawCount, drawn, launch, openPage, outDir } from './helpers/browser.js';
import { startMockHub } from './helpers/mock-hub.mjs';
import { serveSite } from './helpers/static-site.mjs';
import { encodeSafetensors, shardSafetensors, tinyGpt2Tensors } from '../helpers/safetensors.js';
import {
  TINY_LLAMA_CONFIG,
  TINY_NEOX_CONFIG,
  tinyLlamaTensors,
  tinyNeoxTensors,
  tinyTokenizerJson,
} from '../helpers/tiny-models.js';

const root = new URL('../..', import.meta.url).pathname;
const TINY = { vocab_size: 50257, n_positions: 64, n_embd: 32, n_layer: 2, n_head: 4, layer_norm_epsilon: 1e-5 };
const json = (v) => ({ body: `${JSON.stringify(v, null, 2)}\n`, type: 'application/json' });
const gpt2Files = (seed) => ({
  'config.json': json({ model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], ...TINY }),
  'model.safetensors': { body: encodeSafetensors(tinyGpt2Tensors(TINY, seed, 'F16')), redirect: true },
});
const neoxFiles = () => ({
  'config.json': json(TINY_NEOX_CONFIG),
  'tokenizer.json': json(tinyTokenizerJson()),
  'model.safetensors': { body: encodeSafetensors(tinyNeoxTensors(TINY_NEOX_CONFIG, 3, 'F16')), redirect: true },
});

const llamaFiles = (config = TINY_LLAMA_CONFIG) => ({
  'config.json': json(config),
  'tokenizer.json': json(tinyTokenizerJson()),
  'model.safetensors': { body: encodeSafetensors(tinyLlamaTensors(config)), redirect: true },
});
// The same model as save_pretrained shards it: no model.safetensors, an index and two shards.
const shardedLlamaFiles = () => {
  const { 'model.safetensors': whole, ...small } = llamaFiles();
  const { index, shards } = shardSafetensors(whole.body, 2);
  return {
    ...small,
    'model.safetensors.index.json': { body: index, type: 'application/json' },
    ...Object.fromEntries(shards.map((s) => [s.name, { body: s.bytes, redirect: true }])),
  };
};
// Qwen2.5's keys as it ships them: q/k/v biases, θ = 10⁶, a sliding window it does not use.
const TINY_QWEN2_CONFIG = {
  ...TINY_LLAMA_CONFIG,
  architectures: ['Qwen2ForCausalLM'],
  model_type: 'qwen2',
  rope_theta: 1000000,
  rms_norm_eps: 1e-6,
  use_sliding_window: false,
  sliding_window: 64,
  max_window_layers: 2,
};

// Qwen3's keys as it ships them: per-head q/k RMSNorm, an explicit head_dim (here 16, not E/H),
// tied, θ = 10⁶.
const TINY_QWEN3_CONFIG = {
  ...TINY_LLAMA_CONFIG,
  architectures: ['Qwen3ForCausalLM'],
  model_type: 'qwen3',
  head_dim: 16,
  rope_theta: 1000000,
  rms_norm_eps: 1e-6,
  use_sliding_window: false,
  sliding_window: null,
  tie_word_embeddings: true,
};

let browser;
let site;
let base;
let mock;
let builtHtml;
let sourcePolicy;

beforeAll(async () => {
  // The built dist/ (global-setup.js), served with this file's own index.html and config.
  site = await serveSite(path.join(root, process.env.POSLAB_DIST ?? 'dist'), { isolated: true });
  base = site.url;
  browser = await launch();
  mock = await startMockHub({
    repos: {
      'openai-community/gpt2': gpt2Files(7),
      // Like the real gpt2-medium before its conversion: only a pickle checkpoint.
      'openai-community/gpt2-medium': {
        'config.json': json({ model_type: 'gpt2', ...TINY }),
        'pytorch_model.bin': { body: 'not served' },
      },
      'EleutherAI/pythia-70m': neoxFiles(),
      'EleutherAI/pythia-160m': neoxFiles(),
      'HuggingFaceTB/SmolLM2-135M': llamaFiles(),
      'HuggingFaceTB/SmolLM2-360M': shardedLlamaFiles(),
      'Qwen/Qwen2.5-0.5B': llamaFiles(TINY_QWEN2_CONFIG),
      'Qwen/Qwen3-0.6B': llamaFiles(TINY_QWEN3_CONFIG),
    },
  });
  builtHtml = fs.readFileSync(path.join(root, process.env.POSLAB_DIST ?? 'dist', 'index.html'), 'utf8');
  sourcePolicy = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(
    fs.readFileSync(path.join(root, 'web/index.html'), 'utf8'),
  )[1];
});
afterAll(async () => {
  await browser?.close();
  await mock?.close();
  await site?.close();
});

const mockConfig = (fileHosts = [mock.files]) => ({ hub: mock.hub, fileHosts });

/**
 * A page whose poslab.config.json is `config` (text, or null for a 404) and whose CSP is what
 * the build writes for `cspConfig` (the built page's own when null).
 */
async function openModels({ config = mockConfig(), cspConfig = config, allow = [] } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  site.set({
    html:
      cspConfig === null
        ? builtHtml
        : builtHtml.replace(
            /(http-equiv="Content-Security-Policy"\s+content=")[^"]+/,
            (_, open) => open + withHubConnectSrc(sourcePolicy, cspConfig),
          ),
    config: typeof config === 'string' || config === null ? config : JSON.stringify(config),
  });
  return openIn(context, allow);
}

async function openIn(context, allow = []) {
  const page = await context.newPage();
  const problems = [];
  const keep = (text) => !allow.some((re) => re.test(text)) && problems.push(text);
  page.on('console', (m) => m.type() === 'error' && keep(`console: ${m.text()}`));
  page.on('pageerror', (e) => keep(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => keep(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  await page.goto(`${base}#view=lm`);
  if (!(await page.evaluate(() => crossOriginIsolated))) throw new Error('the hub tests run on an isolated page');
  await drawn(page, 'lm');
  await page.waitForSelector('#view-lm .hub[data-ready="true"]');
  return { page, context, problems };
}

const button = (page, id) => page.locator(`#view-lm .hub-load[data-model="${id}"]`);
const label = (page) => page.textContent('#view-lm .lm-model-label');
const hubError = (page) => page.textContent('#c-hub-error');
const storedRepos = (page) => page.$$eval('#view-lm .hub-stored-item', (items) => items.map((li) => li.dataset.repo));
const cacheKeys = (page) =>
  page.evaluate(async () => (await (await caches.open('poslab-models-v1')).keys()).map((r) => r.url));
const hubRequests = () => mock.requests.length;

/** Clicks a model's button and waits for its redraw, which must ask the hub nothing (stored). */
async function loadFromStorage(page, id) {
  const asking = hubRequests();
  const m = await drawCount(page, 'lm');
  await button(page, id).click();
  await drawn(page, 'lm', m + 1);
  expect(hubRequests(), 'requests to the hub').toBe(asking);
}

/** Types `text` into the view's text box and waits for its redraw. */
async function typeText(page, text) {
  const typed = await drawCount(page, 'lm');
  await page.fill('#c-lm-text', text);
  await page.press('#c-lm-text', 'Tab');
  await drawn(page, 'lm', typed + 1);
}

/** The tiny tokenizer.json's 9 tokens (not GPT-2's 6), every layer × head drawn, the top 10. */
async function expectTinyTokenizerRun(page) {
  expect(await page.locator('#view-lm .lm-chip').count()).toBe(9);
  expect(await page.locator('#view-lm .lm-thumb').count()).toBe(2 * 4);
  expect(await page.locator('#view-lm .lm-top tbody tr').count()).toBe(10);
}

async function waitForError(page) {
  await page.waitForFunction(() => document.getElementById('c-hub-error').textContent.length > 0);
  return hubError(page);
}

describe('Models view: one click to a hub model', () => {
  it('E2E.HubGpt2DownloadsWithProgressThenLoadsFromStorageOfflineAndDeletes', async () => {
    const { page, context, problems } = await openModels();
    expect(await page.textContent('#view-lm .hub-source')).toContain(mock.hub);
    expect(await page.textContent('#tab-lm')).toContain('Models');
    expect(await button(page, 'gpt2').textContent()).toMatch(/Load GPT-2 small.*about 548\.0 MB/);
    expect(await storedRepos(page)).toEqual([]);

    // ~3.3 MB at 1.5 MB/s: the progress line shows bytes, a rate and the time left.
    mock.throttle(1.5e6);
    const before = hubRequests();
    const n = await drawCount(page, 'lm');
    await button(page, 'gpt2').click();
    await page.waitForFunction(() =>
      /^model\.safetensors: [\d.]+ [kM]B of 3\.\d MB \(\d+ %\) · [\d.]+ [kM]B\/s · about \d+ s left$/.test(
        document.querySelector('#view-lm .hub-progress-text').textContent,
      ),
    );
    expect(await page.isVisible('#view-lm .hub-progress')).toBe(true);
    expect(await page.isVisible('#view-lm .hub-cancel')).toBe(true);
    await page.screenshot({ path: path.join(outDir, 'hub-progress.png'), fullPage: true });
    await drawn(page, 'lm', n + 1, { timeout: 60_000 });
    mock.throttle(null);
    expect(await label(page)).toBe('Loaded: GPT-2 small (openai-community/gpt2), downloaded from the hub');
    expect(await page.textContent('#view-lm .lm-config tr[data-key="n_embd"] td.num')).toBe('32');
    expect(await page.locator('#view-lm .lm-thumb').count()).toBe(2 * 4);
    expect(await page.textContent('#view-lm .hub-progress-text')).toMatch(
      /^GPT-2 small: downloaded 3\.\d MB in [\d.]+ s and stored; loaded in [\d.]+ s$/,
    );
    // The hub was asked for config.json and the weights; the weights came from the file host.
    const asked = mock.requests.slice(before).map((r) => `${r.server} ${r.path}`);
    expect(asked).toEqual([
      'hub /openai-community/gpt2/resolve/main/config.json',
      'hub /openai-community/gpt2/resolve/main/model.safetensors',
      'files /xet/openai-community/gpt2/model.safetensors',
    ]);
    expect(await storedRepos(page)).toEqual(['openai-community/gpt2']);
    expect(await button(page, 'gpt2').textContent()).toContain('stored');
    expect(await hubError(page)).toBe('');
    await page.close();

    // A second visit: the model loads from Cache Storage, offline, without asking the hub.
    // (Going offline may fail the browser's lazy favicon request: not the page's.)
    const second = await openIn(context, [/favicon\.svg net::ERR_INTERNET_DISCONNECTED/, /ERR_INTERNET_DISCONNECTED$/]);
    const p2 = second.page;
    expect(await label(p2)).toContain('random weights');
    await context.setOffline(true);
    await p2.waitForFunction(() => document.querySelector('#c-hub-why').textContent.startsWith('Offline'));
    expect(await button(p2, 'gpt2').isDisabled()).toBe(false);
    for (const id of ['gpt2-medium', 'pythia-70m', 'pythia-160m']) expect(await button(p2, id).isDisabled()).toBe(true);
    await loadFromStorage(p2, 'gpt2');
    expect(await label(p2)).toBe("Loaded: GPT-2 small (openai-community/gpt2), from this browser's storage");
    expect(await p2.textContent('#view-lm .hub-progress-text')).toMatch(
      /^GPT-2 small: from this browser's storage; loaded in [\d.]+ s$/,
    );
    // The page keeps computing offline.
    const k = await drawCount(p2, 'lm');
    await p2.fill('#c-lm-text', 'a cat sat');
    await p2.press('#c-lm-text', 'Tab');
    await drawn(p2, 'lm', k + 1);
    await p2.screenshot({ path: path.join(outDir, 'hub-offline.png'), fullPage: true });
    await context.setOffline(false);

    // Delete: the list empties, the cache is empty, the model on show stays.
    await p2.click('#view-lm .hub-stored-item[data-repo="openai-community/gpt2"] .hub-delete');
    await p2.waitForFunction(() => document.querySelector('#view-lm .hub-stored-none'));
    expect(await cacheKeys(p2)).toEqual([]);
    expect(await p2.textContent('#view-lm .hub-note')).toMatch(/^GPT-2 small \(openai-community\/gpt2\): deleted/);
    expect(await label(p2)).toContain('GPT-2 small');
    expect(await button(p2, 'gpt2').textContent()).toContain('about 548.0 MB');
    expect(problems, problems.join('\n')).toEqual([]);
    expect(second.problems, second.problems.join('\n')).toEqual([]);
    await context.close();
  });

  // A Llama-family button's click: its label and size, the model loaded from the hub in BF16
  // (held as stored: the model takes its file's bytes) and run with its own tokenizer.json.
  // Returns the open page and a reader of the config table's rows.
  async function runBf16LlamaFromHub(id, buttonText, loaded, allow = []) {
    const opened = await openModels({ allow });
    const { page } = opened;
    await typeText(page, 'the cat sat on the mat');
    const draws = await drawCount(page, 'lm');
    expect(await button(page, id).textContent()).toMatch(buttonText);
    await button(page, id).click();
    await drawn(page, 'lm', draws + 1);
    expect(await label(page)).toBe(`Loaded: ${loaded}, downloaded from the hub`);
    expect(await page.textContent('#view-lm .lm-model-detail')).toMatch(/^Llama · .* · BF16 · /);
    expect(await hubError(page)).toBe('');
    await expectTinyTokenizerRun(page);
    const row = (key) => page.textContent(`#view-lm .lm-config tr[data-key="${key}"] td.num`);
    return { ...opened, row };
  }

  // SmolLM2 (Llama family): a BF16 checkpoint, grouped-query heads, its own tokenizer.json.
  it('E2E.HubSmolLM2Bf16DownloadsAndRunsAsALlama', async () => {
    const { page, context, problems, row } = await runBf16LlamaFromHub(
      'smollm2-135m',
      /Load SmolLM2-135M.*about 269\.0 MB/,
      'SmolLM2-135M (HuggingFaceTB/SmolLM2-135M)',
    );
    expect([await row('model_type'), await row('num_key_value_heads'), await row('rope_theta')]).toEqual([
      'llama',
      '2',
      '100,000',
    ]);
    expect(await page.isDisabled('#c-lm-position')).toBe(true);
    expect(await page.textContent('#view-lm .lm-position-note')).toMatch(
      /^Positions as trained: RoPE on all 8 dims of each head \(base 100000, scaling none\) \(grouped-query: 2 key\/value heads, each shared by 2 query heads/,
    );
    // Grouped-query heads in the grid: each column names its key/value head.
    expect(await page.$$eval('#view-lm .lm-grid-head', (hs) => hs.map((h) => h.textContent))).toEqual([
      'h0 kv0',
      'h1 kv0',
      'h2 kv1',
      'h3 kv1',
    ]);
    // The structure diagram draws the Llama's own steps, repeat_kv among them.
    expect(await page.isVisible('#view-lm .lm-diagram')).toBe(true);
    const steps = await page.textContent('#view-lm .lm-diagram');
    expect(steps).toContain('repeat_kv: k and v to every query head');
    expect(steps).toContain('SwiGLU');
    expect(await page.isVisible('#view-lm .lm-seed')).toBe(false);
    expect(await storedRepos(page)).toEqual(['HuggingFaceTB/SmolLM2-135M']);
    await page.screenshot({ path: path.join(outDir, 'hub-smollm2.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  // Qwen2.5-0.5B: a Llama-family member (q/k/v biases) by its own model_type; Qwen3-0.6B: q/k
  // norms and an explicit head_dim (596M parameters in the page). Both held as BF16.
  it.each([
    [
      'Qwen25DownloadsAndRunsAsAQwen2',
      'qwen2.5-0.5b',
      /Load Qwen2\.5-0\.5B.*about 988\.0 MB/,
      'Qwen2.5-0.5B (Qwen/Qwen2.5-0.5B)',
      ['model_type', 'rope_theta', 'sliding_window'],
      ['qwen2', '1,000,000', '0'],
    ],
    [
      'Qwen3DownloadsAndRunsAsAQwen3',
      'qwen3-0.6b',
      /Load Qwen3-0\.6B.*about 1\.5\d* GB/,
      'Qwen3-0.6B (Qwen/Qwen3-0.6B)',
      ['model_type', 'head_dim', 'rope_theta'],
      ['qwen3', '16', '1,000,000'],
    ],
  ])(
    'E2E.Hub%s',
    async (_name, id, button, title, keys, values) => {
      const { context, problems, row } = await runBf16LlamaFromHub(id, button, title);
      expect(await Promise.all(keys.map((key) => row(key)))).toEqual(values);
      expect(problems).toEqual([]);
      await context.close();
    },
    120_000,
  );

  // A repository that ships its weights in shards: no model.safetensors (404), so the page asks
  // for model.safetensors.index.json and the shards it names, as from_pretrained does; they are
  // stored as they came, and the next click reads them from storage.
  it('E2E.HubShardedCheckpointDownloadsStoresAndRuns', async () => {
    const repo = 'HuggingFaceTB/SmolLM2-360M';
    const { page, context, problems } = await runBf16LlamaFromHub(
      'smollm2-360m',
      /Load SmolLM2-360M/,
      `SmolLM2-360M (${repo})`,
      [/status of 404/],
    );
    const asked = mock.requests
      .filter((r) => r.server === 'hub' && r.path.includes(repo))
      .map((r) => r.path.split('/resolve/main/')[1]);
    expect(asked).toEqual([
      'config.json',
      'tokenizer.json',
      'model.safetensors',
      'model.safetensors.index.json',
      'model-00001-of-00002.safetensors',
      'model-00002-of-00002.safetensors',
    ]);
    expect((await cacheKeys(page)).map((u) => u.slice(mock.hub.length)).sort()).toEqual(
      [
        'config.json',
        'model-00001-of-00002.safetensors',
        'model-00002-of-00002.safetensors',
        'model.safetensors.index.json',
        'tokenizer.json',
      ].map((f) => `/${repo}/resolve/main/${f}`),
    );
    expect(await storedRepos(page)).toEqual([repo]);
    expect(await page.textContent('#view-lm .hub-stored-item')).not.toContain('incomplete');
    await loadFromStorage(page, 'smollm2-360m');
    expect(await label(page)).toBe(`Loaded: SmolLM2-360M (${repo}), from this browser's storage`);
    expect(problems.filter((p) => !/model\.safetensors/.test(p))).toEqual([]);
    await context.close();
  }, 120_000);

  it('E2E.HubPythiaDownloadsStoresAndRunsWithItsTokenizer', async () => {
    const { page, context, problems } = await openModels();
    await typeText(page, 'the cat sat on the mat');
    const draws = await drawCount(page, 'lm');
    await button(page, 'pythia-70m').click();
    await drawn(page, 'lm', draws + 1);
    expect(await label(page)).toBe('Loaded: Pythia-70m (EleutherAI/pythia-70m), downloaded from the hub');
    expect(await page.textContent('#view-lm .lm-model-detail')).toMatch(/^GPT-NeoX · /);
    expect(await page.textContent('#view-lm .hub-progress-text')).toMatch(
      /^Pythia-70m: downloaded [\d.]+ [kM]B in [\d.]+ s and stored; loaded in [\d.]+ s$/,
    );
    expect(await hubError(page)).toBe('');
    await expectTinyTokenizerRun(page);
    const row = (key) => page.textContent(`#view-lm .lm-config tr[data-key="${key}"] td.num`);
    expect([await row('hidden_size'), await row('num_attention_heads'), await row('rotary_pct')]).toEqual([
      '32',
      '4',
      '0.25',
    ]);
    expect(await row('use_parallel_residual')).toBe('true');
    // GPT-2's position swap does not apply: disabled with the reason. The diagram is GPT-NeoX's.
    expect(await page.isDisabled('#c-lm-position')).toBe(true);
    expect(await page.getAttribute('#c-lm-position', 'title')).toMatch(/does not apply/);
    expect(await page.textContent('#view-lm .lm-position-note')).toMatch(/^Positions as trained: RoPE/);
    expect(await page.textContent('#view-lm .lm-diagram')).toContain('attention.query_key_value');
    expect(await storedRepos(page)).toEqual(['EleutherAI/pythia-70m']);
    expect(await button(page, 'pythia-70m').textContent()).toContain('stored');
    const keys = await cacheKeys(page);
    expect(keys.map((u) => u.slice(mock.hub.length)).sort()).toEqual([
      '/EleutherAI/pythia-70m/resolve/main/config.json',
      '/EleutherAI/pythia-70m/resolve/main/model.safetensors',
      '/EleutherAI/pythia-70m/resolve/main/tokenizer.json',
    ]);
    // Typed text redraws through its tokenizer; again from storage, no request.
    await typeText(page, 'hello the cat');
    expect(await page.locator('#view-lm .lm-chip').count()).toBe(3);
    await loadFromStorage(page, 'pythia-70m');
    expect(await label(page)).toBe("Loaded: Pythia-70m (EleutherAI/pythia-70m), from this browser's storage");
    await page.screenshot({ path: path.join(outDir, 'hub-pythia.png'), fullPage: true });
    // Back to random weights: GPT-2 again, with its position swap.
    const n = await drawCount(page, 'lm');
    await page.click('#view-lm .lm-weights button:has-text("use random weights")');
    await drawn(page, 'lm', n + 1);
    expect(await page.isDisabled('#c-lm-position')).toBe(false);
    expect(await page.isVisible('#view-lm .lm-diagram')).toBe(true);
    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });

  it('E2E.HubFailuresSayWhyStoreNothingAndKeepTheModel', async () => {
    // The refused and cut-short requests the browser logs (a refused body is cancelled).
    const allow = [
      /status of 404/,
      /requestfailed: .*(model\.safetensors(\.index\.json)?|tokenizer\.json) net::ERR_(ABORTED|CONTENT_LENGTH_MISMATCH|FAILED)/,
      /ERR_CONTENT_LENGTH_MISMATCH/,
    ];
    const { page, context, problems } = await openModels({ allow });
    const n = await drawCount(page, 'lm');

    // No safetensors in the repository: said so, and no pickle fallback is tried.
    const asking = hubRequests();
    await button(page, 'gpt2-medium').click();
    expect(await waitForError(page)).toBe(
      `openai-community/gpt2-medium has no model.safetensors on ${mock.hub} (HTTP 404). PosLab reads only safetensors weights and never falls back to pickle (.bin) checkpoints.`,
    );
    // Asked for the shards' index, as from_pretrained falls back, but never for the pickle.
    const asked = mock.requests.slice(asking).map((r) => r.path.split('/').at(-1));
    expect(asked).toContain('model.safetensors.index.json');
    expect(asked.some((f) => f.endsWith('.bin'))).toBe(false);
    await page.screenshot({ path: path.join(outDir, 'hub-404.png'), fullPage: true });

    const attempt = async (repoFile, behaviour, id) => {
      mock.behave('EleutherAI/pythia-160m', repoFile, behaviour);
      await page.evaluate(() => (document.getElementById('c-hub-error').textContent = ''));
      await button(page, id).click();
      const message = await waitForError(page);
      mock.behave('EleutherAI/pythia-160m', repoFile, 'ok');
      return message;
    };
    expect(await attempt('model.safetensors', 'html', 'pythia-160m')).toBe(
      `${mock.hub} answered model.safetensors of EleutherAI/pythia-160m with an HTML page, not the file (a sign-in, error or portal page?)`,
    );
    expect(await attempt('model.safetensors', 'junk', 'pythia-160m')).toMatch(
      /^model\.safetensors: not a \.safetensors file \(its first 8 bytes give a header of \d+ bytes/,
    );
    expect(await attempt('model.safetensors', 'truncate', 'pythia-160m')).toMatch(
      /^model\.safetensors: the download stopped after \d+ of \d+ bytes.*; nothing was stored$/,
    );
    expect(await attempt('config.json', 'junk', 'pythia-160m')).toMatch(
      /^EleutherAI\/pythia-160m's config\.json: not valid JSON/,
    );
    expect(await attempt('tokenizer.json', 'html', 'pythia-160m')).toContain('with an HTML page');

    expect(await cacheKeys(page)).toEqual([]);
    expect(await storedRepos(page)).toEqual([]);
    expect(await label(page)).toContain('random weights');
    expect(await drawCount(page, 'lm')).toBe(n);
    for (const id of ['gpt2', 'gpt2-medium', 'pythia-70m', 'pythia-160m']) {
      expect(await button(page, id).isDisabled()).toBe(false);
    }
    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });

  it('E2E.HubErrorWithNoNetworkIsInsideTheViewportAfterTheClick', async () => {
    // A laptop screen (1280 × 900) under a settings column taller than it: the hub cannot be
    // reached (the browser still believes it is online), and the message must be in sight.
    const { page, context, problems } = await openModels({ allow: [/requestfailed: /, /ERR_INTERNET_DISCONNECTED/] });
    await page.route(`${mock.hub}/**`, (route) => route.abort('internetdisconnected'));
    await button(page, 'gpt2').click();
    expect(await waitForError(page)).not.toBe('');
    const box = await page.locator('#c-hub-error').boundingBox();
    expect(box.y, 'the error line top').toBeGreaterThanOrEqual(0);
    expect(box.y + box.height, 'the error line bottom').toBeLessThanOrEqual(901); // scrolled to the edge: sub-pixel
    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });

  it('E2E.HubCancelStopsTheDownloadAndStoresNothing', async () => {
    const { page, context, problems } = await openModels({ allow: [/requestfailed: .*model\.safetensors/] });
    mock.behave('openai-community/gpt2', 'model.safetensors', 'stall');
    await button(page, 'gpt2').click();
    await page.waitForFunction(() =>
      /^model\.safetensors: [\d.]+ [kM]B of/.test(document.querySelector('#view-lm .hub-progress-text').textContent),
    );
    expect(await button(page, 'pythia-70m').isDisabled()).toBe(true); // one load at a time
    await page.click('#view-lm .hub-cancel');
    expect(await waitForError(page)).toBe('model.safetensors: download cancelled; nothing was stored');
    mock.behave('openai-community/gpt2', 'model.safetensors', 'ok');
    expect(await page.isVisible('#view-lm .hub-progress')).toBe(false);
    expect(await cacheKeys(page)).toEqual([]);
    expect(await storedRepos(page)).toEqual([]);
    expect(await label(page)).toContain('random weights');
    // The next click downloads it whole.
    const n = await drawCount(page, 'lm');
    await button(page, 'gpt2').click();
    await drawn(page, 'lm', n + 1);
    expect(await label(page)).toContain('GPT-2 small');
    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });

  it('E2E.HubConfigMissingOrInvalidMeansTheDefaultHubWithANote', async () => {
    for (const [config, why] of [
      [null, 'poslab.config.json: not found next to the page (HTTP 404); using the default hub https://huggingface.co'],
      ['{"hub": ', 'poslab.config.json: not valid JSON'],
      ['{"hub": "ftp://mirror.example"}', 'poslab.config.json: "hub" must be an http(s) URL, not ftp:'],
    ]) {
      // The built page's own CSP: the default hub is allowed.
      const { page, context, problems } = await openModels({ config, cspConfig: null, allow: [/status of 404/] });
      expect(await page.textContent('#view-lm .hub-config-note')).toContain(why);
      expect(await page.textContent('#view-lm .hub-source')).toContain('hub: https://huggingface.co');
      expect(await page.textContent('#c-hub-why')).toBe('');
      expect(await button(page, 'gpt2').isDisabled()).toBe(false);
      expect(problems, problems.join('\n')).toEqual([]);
      await context.close();
    }
  });

  it('E2E.HubTheCspAllowsOnlyTheConfiguredHub', async () => {
    // The built page allows the default hub and its file hosts, not a mock hub.
    const built = parseCsp(
      /content="([^"]+)"/.exec(/<meta\s+http-equiv="Content-Security-Policy"[^>]+>/.exec(builtHtml)[0])[1],
    );
    expect(built.get('connect-src')).toEqual([
      "'self'",
      'data:',
      'blob:',
      'https://huggingface.co',
      'https://*.hf.co',
      'https://*.huggingface.co',
    ]);
    {
      const { page, context, problems } = await openModels({ cspConfig: null });
      expect(await page.textContent('#c-hub-why')).toMatch(
        new RegExp(`^This page's Content-Security-Policy does not allow connecting to ${mock.hub}, ${mock.files}`),
      );
      for (const id of ['gpt2', 'pythia-70m']) expect(await button(page, id).isDisabled()).toBe(true);
      expect(problems, problems.join('\n')).toEqual([]);
      await context.close();
    }
    // A page built for the hub but not for where it redirects: the refused host is named.
    const { page, context, problems } = await openModels({
      config: mockConfig([]),
      allow: [
        /Refused to connect|violates the following Content Security Policy/,
        /requestfailed: .*model\.safetensors/,
      ],
    });
    expect(await page.textContent('#c-hub-why')).toBe('');
    await button(page, 'gpt2').click();
    expect(await waitForError(page)).toBe(
      `model.safetensors: this page's Content-Security-Policy does not allow connecting to the host ${mock.hub} redirected it to (the hub itself is allowed): list the hosts the hub sends downloads to in "fileHosts" of poslab.config.json and rebuild the page`,
    );
    expect(await cacheKeys(page)).toEqual([]);
    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });
});
