// The RoPE inspector in Chromium on the real language-model module: a bundled config from the
// link (Gemma 3: local and global bases), others picked from the menu (Llama 4: NoPE layers,
// chunks, the query temperature; DeepSeek-V3's MLA; Qwen2-VL's M-RoPE), then a pasted config: a
// broken one is refused beside the menu and the last plot stays, a good one is drawn.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserForFile, canvasColours, canvasHash, drawCount, drawn, openPage, outDir } from './helpers/browser.js';

const session = browserForFile();

describe('view rope-inspector', () => {
  it('E2E.RopeInspectorBundledPickedAndPasted', async () => {
    const section = '#view-rope-inspector';
    const canvas = `${section} .fig canvas`;
    const about = `${section} .ri-about`;
    const { page, problems } = await openPage(
      session.browser,
      `${session.base}#view=rope-inspector&ri.config=gemma-3-4b`,
    );
    await drawn(page, 'ri');
    const gemma = await page.textContent(about);
    expect(gemma).toMatch(/gemma3_text \(text_config\)/);
    expect(gemma).toMatch(/sliding window 1,024/);
    expect(gemma).toMatch(/RoPE base 10,000 \(local\)/);
    expect(gemma).toMatch(/linear × 8 .*\(global\)/);
    for (const n of await canvasColours(page, section)) expect(n, 'a canvas is blank').toBeGreaterThan(2);
    await page.screenshot({ path: path.join(outDir, 'rope-inspector.png'), fullPage: true });

    let count = await drawCount(page, 'ri');
    await page.selectOption('#c-ri-config', 'llama-4-scout');
    await drawn(page, 'ri', count + 1);
    const scout = await page.textContent(about);
    expect(scout).toMatch(/NoPE \(no rotation\)/);
    expect(scout).toMatch(/chunks of 8,192/);
    expect(scout).toMatch(/llama3 × 8/);

    // The newest configs: Scout's equal llama3 bands and its NoPE layers' temperature (a plot);
    // DeepSeek-V3's MLA; Qwen2-VL's M-RoPE axes, sample ids (a table and a plot).
    const figure = (name) => `${section} .fig[data-figure="${name}"]`;
    const newest = [
      ['llama-4-scout-17b-16e', [/llama3 × 16/, /1 \+ 0\.1 × ln\(1 \+ ⌊\(p \+ 1\) \/ 8,192⌋\)/], 'temperature'],
      ['deepseek-v3', [/head width 192 \(64 of them rotated\)/, /softmax scale 192\^−½ × m²/], null],
      ['qwen2-vl-7b', [/time: pairs 0–15 \(16\)/, /get_rope_index/], 'mrope'],
    ];
    for (const [config, texts, shown] of newest) {
      count = await drawCount(page, 'ri');
      await page.selectOption('#c-ri-config', config);
      await drawn(page, 'ri', count + 1);
      const text = await page.textContent(about);
      for (const t of texts) expect(text, config).toMatch(t);
      for (const name of ['temperature', 'mrope']) {
        expect(await page.isVisible(figure(name)), `${config} ${name}`).toBe(name === shown);
      }
      for (const n of await canvasColours(page, section)) expect(n, `${config}: a canvas is blank`).toBeGreaterThan(2);
    }
    expect(await page.textContent(`${about} .ri-wide table`)).toMatch(/image/);

    // Pasted: nothing yet, then a broken text (refused, plot kept), then a good one.
    const before = await canvasHash(page, canvas);
    await page.selectOption('#c-ri-config', 'pasted');
    await page.fill('#ri-text', '{"hidden_size": 64, "num_attention_heads": 4');
    await page.waitForFunction(() => document.querySelector('#c-ri-config-error')?.textContent.length > 0);
    expect(await page.textContent('#c-ri-config-error')).toMatch(/not valid JSON/);
    expect(await page.textContent('#c-ri-config-error')).not.toMatch(/json\.exception/); // the parser's tag stripped
    expect(await page.textContent('label[for="ri-text"]')).toMatch(/a link does not carry it/);
    expect(await canvasHash(page, canvas)).toBe(before);
    count = await drawCount(page, 'ri');
    await page.fill(
      '#ri-text',
      JSON.stringify({
        model_type: 'qwen3',
        hidden_size: 64,
        num_attention_heads: 4,
        num_hidden_layers: 2,
        max_position_embeddings: 40960,
        rope_theta: 1000000,
        rope_scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 32768 },
      }),
    );
    await drawn(page, 'ri', count + 1);
    expect(await page.textContent(about)).toMatch(/Pasted config: qwen3/);
    expect(await page.textContent(about)).toMatch(/yarn × 4 reaches 131,072 positions/);
    expect(await page.textContent('#c-ri-config-error')).toBe('');
    expect(problems).toEqual([]);
  }, 240_000);
});
