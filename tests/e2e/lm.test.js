// The GPT-2 view in Chromium on the real wasm core: the random-init model on typed text with
// every head's map, a map opened with token labels, a swapped position method with its note,
// a tiny checkpoint (written here) loaded through the file input, a tiny Gemma 3 with its
// tokenizer.json (local files: its Hub repositories are gated), and broken input shown beside
// its control with the last plot kept. Timings go to test-output/e2e/gpt2-timings.json.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserForFile,
  canvasColours,
  canvasHash,
  drawCount,
  drawn,
  openPage,
  outDir,
  PHONE,
  sidewaysScroll,
  unlabelledControls,
  urlWith,
} from './helpers/browser.js';
import { encodeSafetensors, tinyGpt2Tensors } from '../helpers/safetensors.js';
import { TINY_LLAMA_CONFIG, tinyLlamaTensors, tinyTokenizerJson } from '../helpers/tiny-models.js';

const TINY = { vocab_size: 50257, n_positions: 64, n_embd: 32, n_layer: 2, n_head: 4, layer_norm_epsilon: 1e-5 };
// wte + wpe + 2 blocks (2 LayerNorms, c_attn, attn c_proj, c_fc, mlp c_proj, with biases) + ln_f
const E = 32;
const TINY_PARAMETERS =
  50257 * E + 64 * E + 2 * (4 * E + (E * 3 * E + 3 * E) + (E * E + E) + (E * 4 * E + 4 * E) + (4 * E * E + E)) + 2 * E;

const dir = path.join(outDir, 'gpt2-tiny');
const files = {};
const timings = {};
const session = browserForFile();

beforeAll(() => {
  fs.mkdirSync(dir, { recursive: true });
  const bytes = encodeSafetensors(tinyGpt2Tensors(TINY, 7, 'F16'));
  files.model = path.join(dir, 'model.safetensors');
  files.config = path.join(dir, 'config.json');
  fs.writeFileSync(files.model, bytes);
  fs.writeFileSync(files.config, `${JSON.stringify({ model_type: 'gpt2', ...TINY }, null, 2)}\n`);
  // The same file cut short: the header promises more data than there is.
  fs.mkdirSync(path.join(dir, 'truncated'), { recursive: true });
  files.truncated = path.join(dir, 'truncated', 'model.safetensors');
  fs.writeFileSync(files.truncated, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
  // Gemma 3's text model: 3 layers, the middle one global (sliding_window_pattern 2 on 3 layers
  // makes layers 0 and 2 sliding), one key/value head, head_dim 16 > E/H.
  fs.mkdirSync(path.join(dir, 'gemma'), { recursive: true });
  files.gemma = Object.fromEntries(
    ['model.safetensors', 'config.json', 'tokenizer.json'].map((f) => [f, path.join(dir, 'gemma', f)]),
  );
  const gemma = {
    ...TINY_LLAMA_CONFIG,
    architectures: ['Gemma3ForCausalLM'],
    model_type: 'gemma3_text',
    num_hidden_layers: 3,
    num_key_value_heads: 1,
    head_dim: 16,
    query_pre_attn_scalar: 16,
    sliding_window: 4,
    sliding_window_pattern: 2,
    rope_local_base_freq: 10000,
    rope_scaling: { rope_type: 'linear', factor: 8 },
    hidden_activation: 'gelu_pytorch_tanh',
    hidden_act: undefined,
  };
  fs.writeFileSync(files.gemma['model.safetensors'], encodeSafetensors(tinyLlamaTensors(gemma, 9)));
  fs.writeFileSync(files.gemma['config.json'], `${JSON.stringify(gemma, null, 2)}\n`);
  fs.writeFileSync(files.gemma['tokenizer.json'], JSON.stringify(tinyTokenizerJson()));
});
afterAll(() => {
  fs.writeFileSync(path.join(outDir, 'gpt2-timings.json'), `${JSON.stringify(timings, null, 2)}\n`);
  console.log('GPT-2 view timings (ms):', JSON.stringify(timings));
});

const lastTiming = (page, view = 'lm') =>
  page.evaluate((v) => (globalThis.__poslabTimings ?? []).filter((t) => t.view === v).at(-1), view);
const thumbs = (page) => page.locator('#view-lm .lm-thumb');
const configValue = (page, key) => page.textContent(`#view-lm .lm-config tr[data-key="${key}"] td.num`);

async function typeText(page, text) {
  const n = await drawCount(page, 'lm');
  await page.fill('#c-lm-text', text);
  await page.press('#c-lm-text', 'Tab');
  await drawn(page, 'lm', n + 1);
}

describe('GPT-2 view', () => {
  it('E2E.Gpt2RandomInitDrawsEveryHeadAndOpensOne', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=lm`);
    await drawn(page, 'lm');
    const first = await lastTiming(page);
    timings.randomInit = {
      shape: 'mini',
      createMs: first.createMs,
      firstForwardMs: first.forwardMs,
      firstGridAtMs: first.at,
    };
    expect(await page.textContent('#view-lm .lm-model-label')).toContain(
      'random weights (seed 0), not trained: the attention patterns mean nothing',
    );

    await typeText(page, 'A cat sat on the mat because it was cold');
    const t = await lastTiming(page);
    timings.forward10 = {
      T: t.T,
      forwardMs: t.forwardMs,
      computeMs: t.computeMs,
      drawMs: t.drawMs,
      totalMs: t.totalMs,
    };
    expect(t.T).toBe(10);
    const chips = page.locator('#view-lm .lm-chip');
    expect(await chips.count()).toBe(10);
    expect(await chips.nth(4).textContent()).toBe('␣the262');
    const layers = Number(await configValue(page, 'n_layer'));
    const heads = Number(await configValue(page, 'n_head'));
    expect(layers * heads).toBeGreaterThan(1);
    expect(await thumbs(page).count()).toBe(layers * heads);
    for (const n of await canvasColours(page, '#view-lm')) expect(n, 'a canvas is blank').toBeGreaterThan(2);
    expect(await page.locator('#view-lm .lm-top tbody tr').count()).toBe(10);
    expect(await page.locator('#view-lm .lm-heads .fig').count()).toBe(heads);
    expect(new URLSearchParams(new URL(await urlWith(page, 'lm.text=A')).hash.slice(1)).get('lm.text')).toBe(
      'A cat sat on the mat because it was cold',
    );
    await page.screenshot({ path: path.join(outDir, 'gpt2-random.png'), fullPage: true });

    // Clicking a small map opens it with token labels, without another forward pass.
    const n = await drawCount(page, 'lm');
    const pickLayer = layers - 1;
    const pickHead = heads - 1;
    await page.click(`#view-lm .lm-thumb[data-layer="${pickLayer}"][data-head="${pickHead}"]`);
    const full = '#view-lm .lm-full';
    await page.waitForFunction(
      ([sel, title]) => document.querySelector(`${sel} .fig-title`)?.textContent.startsWith(title),
      [full, `Layer ${pickLayer} · head ${pickHead}`],
    );
    expect(await drawCount(page, 'lm')).toBe(n);
    await urlWith(page, `lm.layer=${pickLayer}&lm.head=${pickHead}`);
    expect(
      await page.getAttribute(`#view-lm .lm-thumb[data-layer="${pickLayer}"][data-head="${pickHead}"]`, 'aria-pressed'),
    ).toBe('true');
    await page.focus(`${full} canvas`);
    await page.keyboard.press('ArrowDown'); // query 1 “␣cat”, key 0 “A”
    expect(await page.textContent(`${full} .readout`)).toMatch(/query 1 “␣cat”, key 0 “A”: /);
    await page.screenshot({ path: path.join(outDir, 'gpt2-opened.png'), fullPage: true });

    // Another position method shows the core's note prominently.
    expect(await page.isVisible('#view-lm .lm-position-note.warn')).toBe(false);
    const m = await drawCount(page, 'lm');
    await page.selectOption('#c-lm-position', 'rope');
    await drawn(page, 'lm', m + 1);
    expect(await page.isVisible('#view-lm .lm-position-note.warn')).toBe(true);
    expect((await page.textContent('#view-lm .lm-position-note')).length).toBeGreaterThan(20);
    expect(await page.textContent('#view-lm .lm-diagram')).toContain('RoPE: rotate q and k');
    await urlWith(page, 'lm.position=rope');
    await page.selectOption('#c-lm-position', 'learned');
    await drawn(page, 'lm', m + 2);
    expect(await page.isVisible('#view-lm .lm-position-note.warn')).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('E2E.Gpt2PhoneWidthDarkThemeAndLabels', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=lm&theme=dark`, PHONE);
    await drawn(page, 'lm');
    expect(await sidewaysScroll(page), 'page scrolls sideways on a phone').toBeLessThanOrEqual(1);
    expect(await unlabelledControls(page, '#view-lm')).toEqual([]);
    await page.screenshot({ path: path.join(outDir, 'gpt2-phone-dark.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('E2E.Gpt2RunsAGemma3TextCheckpointFromLocalFiles', async () => {
    const { page, context, problems } = await openPage(
      session.browser,
      `${session.base}#view=lm&lm.text=the%20cat%20sat%20on%20the%20mat`,
    );
    await drawn(page, 'lm');
    const n = await drawCount(page, 'lm');
    await page.setInputFiles('#c-lm-file', Object.values(files.gemma));
    await drawn(page, 'lm', n + 1);
    expect(await page.textContent('#c-lm-file-error')).toBe('');
    expect(await page.textContent('#view-lm .lm-model-detail')).toMatch(/^Llama · .* · BF16 · /);
    expect(await configValue(page, 'model_type')).toBe('gemma3_text');
    expect(await configValue(page, 'sliding_layers')).toBe('2');
    expect(await configValue(page, 'query_pre_attn_scalar')).toBe('16');
    expect(await page.textContent('#view-lm .lm-position-note')).toMatch(
      /scaling linear × 8 .*2 of 3 layers attend in a window of 4 and turn at base 10000, unscaled/,
    );
    // One key/value head serves all four query heads; 3 layers × 4 heads drawn.
    expect(await thumbs(page).count()).toBe(3 * 4);
    const heads = await page.$$eval('#view-lm .lm-grid-head', (hs) => hs.map((h) => h.textContent));
    expect(heads).toEqual(['h0 kv0', 'h1 kv0', 'h2 kv0', 'h3 kv0']);
    const steps = await page.textContent('#view-lm .lm-diagram');
    for (const step of ['embed_tokens[tok] · √E', 'post_feedforward_layernorm', 'GeGLU', 'rope_local_base_freq']) {
      expect(steps).toContain(step);
    }
    for (const c of await canvasColours(page, '#view-lm')) expect(c, 'a canvas is blank').toBeGreaterThan(2);
    await page.screenshot({ path: path.join(outDir, 'gpt2-gemma3.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('E2E.Gpt2LoadsATinyCheckpointAndKeepsItWhenTheNextFileIsBroken', async () => {
    const { page, context, problems } = await openPage(
      session.browser,
      `${session.base}#view=lm&lm.text=Hello%20world%2C%20hello%20cat`,
    );
    await drawn(page, 'lm');
    const n = await drawCount(page, 'lm');
    // Without its config.json the tiny model's width (32) gives no head count: refused.
    await page.setInputFiles('#c-lm-file', [files.model]);
    await page.waitForFunction(() => document.getElementById('c-lm-file-error').textContent.length > 0);
    expect(await page.textContent('#c-lm-file-error')).toContain('config.json');

    await page.setInputFiles('#c-lm-file', [files.model, files.config]);
    await drawn(page, 'lm', n + 1);
    expect(await page.textContent('#c-lm-file-error')).toBe('');
    expect(await page.textContent('#view-lm .lm-progress-text')).toMatch(/^model\.safetensors: loaded in \d/);
    const load = await lastTiming(page, 'lm-load');
    timings.tinyCheckpoint = { bytes: load.bytes, loadMs: load.loadMs, forwardMs: (await lastTiming(page)).forwardMs };
    expect(await page.textContent('#view-lm .lm-model-label')).toContain('Loaded: model.safetensors with config.json');
    expect(await page.textContent('#view-lm .lm-model-detail')).toContain('F16');
    expect(await thumbs(page).count()).toBe(2 * 4);
    expect(await configValue(page, 'n_embd')).toBe('32');
    expect(await configValue(page, 'n_positions')).toBe('64');
    expect(await configValue(page, 'n_layer')).toBe('2');
    expect(await configValue(page, 'n_head')).toBe('4');
    expect(await configValue(page, 'vocab_size')).toBe('50,257');
    const total = await page.textContent('#view-lm .lm-params tr[data-component="total"] td.num');
    expect(total).toBe(TINY_PARAMETERS.toLocaleString('en-US'));
    for (const c of await canvasColours(page, '#view-lm')) expect(c, 'a canvas is blank').toBeGreaterThan(2);
    await page.screenshot({ path: path.join(outDir, 'gpt2-tiny.png'), fullPage: true });

    // A truncated file: the message beside the file input, the loaded model and its plots stay.
    const before = await canvasHash(page, '#view-lm .lm-thumb');
    const drawsBefore = await drawCount(page, 'lm');
    await page.setInputFiles('#c-lm-file', [files.truncated, files.config]);
    await page.waitForFunction(() => document.getElementById('c-lm-file-error').textContent.length > 0);
    expect(await page.textContent('#c-lm-file-error')).toContain('model.safetensors');
    expect(await drawCount(page, 'lm')).toBe(drawsBefore);
    expect(await thumbs(page).count()).toBe(8);
    expect(await canvasHash(page, '#view-lm .lm-thumb')).toBe(before);
    expect(await page.textContent('#view-lm .lm-model-label')).toContain('Loaded: model.safetensors');

    // The loaded model still runs; more tokens than its n_positions = 64 are refused beside the text.
    await typeText(page, 'a cat');
    expect(await thumbs(page).count()).toBe(8);
    const kept = await canvasHash(page, '#view-lm .lm-thumb');
    await page.fill('#c-lm-text', 'one two three four five six seven eight nine ten '.repeat(7).trim());
    await page.press('#c-lm-text', 'Tab');
    await page.waitForFunction(() => document.getElementById('c-lm-text-error').textContent.length > 0);
    expect(await page.textContent('#c-lm-text-error')).toMatch(/70 tokens: .*n_positions = 64/);
    expect(await canvasHash(page, '#view-lm .lm-thumb')).toBe(kept);
    await page.screenshot({ path: path.join(outDir, 'gpt2-errors.png'), fullPage: true });

    // Back to the random init: its 4 × 4 grid and its label, the checkpoint freed.
    await typeText(page, 'a cat sat');
    const draws = await drawCount(page, 'lm');
    await page.click('#view-lm button:has-text("use random weights")');
    await drawn(page, 'lm', draws + 1);
    await page.waitForFunction(() => document.querySelectorAll('#view-lm .lm-thumb').length !== 8, null, {
      timeout: 20000,
    });
    expect(await thumbs(page).count()).toBe(4 * 4);
    expect(await page.textContent('#view-lm .lm-model-label')).toContain('random weights');
    expect(problems).toEqual([]);
    await context.close();
  });
});
