// The Surgery view in Chromium on the real modules: it opens on the lab's shipped model with the
// bands sweep drawn (one bar per rotation pair and per kept share, each with its interval), a
// click on a bar draws its loss by position and attention map (and lands in the link), the
// heads sweep labels each bar with the lens's role, the permalink reloads to the same picture,
// the bars export as CSV, PNG and surgery.json, an intervention the model cannot take is refused
// beside its control with the last figures kept, and a tiny model waits for Run, reports its
// progress and stops on Cancel.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeSafetensors } from '../helpers/safetensors.js';
import { TINY_LLAMA_CONFIG, tinyLlamaTensors, tinyTokenizerJson } from '../helpers/tiny-models.js';
import { browserForFile, canvasHash, drawCount, drawn, openPage, outDir, urlWith } from './helpers/browser.js';

const session = browserForFile();
// A tiny Llama checkpoint with its config and tokenizer, for the Models view's file input.
const dir = path.join(outDir, 'surgery-llama');
const files = ['model.safetensors', 'config.json', 'tokenizer.json'].map((f) => path.join(dir, f));
beforeAll(() => {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(files[0], encodeSafetensors(tinyLlamaTensors(TINY_LLAMA_CONFIG, 5)));
  fs.writeFileSync(files[1], `${JSON.stringify(TINY_LLAMA_CONFIG, null, 2)}\n`);
  fs.writeFileSync(files[2], JSON.stringify(tinyTokenizerJson()));
});
const section = '#view-surgery';
const fig = (name) => `${section} .fig[data-figure="${name}"]`;
const title = (page, name) => page.textContent(`${fig(name)} .fig-title`);

/** Clicks the row of the bar whose readout starts with `label` (the bars lie, one row each). */
async function clickBar(page, label) {
  const canvas = page.locator(`${fig('deltas')} canvas`);
  await canvas.scrollIntoViewIfNeeded(); // the mouse reaches only what is on screen
  const box = await canvas.boundingBox();
  for (let y = 4; y < box.height - 4; y += 5) {
    await page.mouse.move(box.x + box.width * 0.6, box.y + y);
    const read = await page.textContent(`${fig('deltas')} .readout`);
    if (read.startsWith(label)) return page.mouse.click(box.x + box.width * 0.6, box.y + y);
  }
  throw new Error(`no bar reads ${label}`);
}

describe('view surgery', () => {
  it('E2E.SurgeryOpensOnTheLabModelsBandsAndDrawsThePickedBar', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=surgery`);
    await drawn(page, 'sg');
    expect(await page.inputValue('#c-sg-model')).toBe('lab-rope');
    expect(await page.inputValue('#c-sg-sweep')).toBe('bands');
    expect(await title(page, 'deltas')).toMatch(/bands sweep, 13 bars/); // 8 pairs one by one, 5 kept shares
    expect(await page.textContent(`${section} .sg-about`)).toMatch(/^a byte-level RoPE model trained by the lab/);
    expect(await page.locator(`${section} .surgery-legend li`).allTextContents()).toEqual([
      'rotation pairs zeroed',
      'only the fastest pairs kept',
    ]);
    // The largest change is drawn below by default: keeping none of the pairs.
    expect(await title(page, 'positions')).toMatch(/unmodified and no pair kept/);
    expect(await title(page, 'after')).toMatch(/layer 0, head 0: no pair kept/);
    await page.screenshot({ path: path.join(outDir, 'surgery.png'), fullPage: true });

    // A click on the first bar (pair 0 zeroed) draws it below and lands in the link.
    const before = await canvasHash(page, `${fig('positions')} canvas`);
    let count = await drawCount(page, 'sg');
    await clickBar(page, 'pair 0 zeroed');
    await drawn(page, 'sg', count + 1);
    const url = await urlWith(page, 'sg.show=1');
    expect(await title(page, 'positions')).toMatch(/unmodified and pair 0 zeroed/);
    expect(await canvasHash(page, `${fig('positions')} canvas`)).not.toBe(before);
    const after = await canvasHash(page, `${fig('after')} canvas`);

    // The permalink reopens on the same bar and the same map.
    const again = await openPage(session.browser, url);
    await drawn(again.page, 'sg');
    expect(await again.page.inputValue('#c-sg-show')).toBe('1');
    expect(await canvasHash(again.page, `${fig('after')} canvas`)).toBe(after);
    expect(again.problems).toEqual([]);
    await again.context.close();

    // The bars export as CSV (with each interval), PNG and the report as surgery.json's keys.
    for (const label of ['CSV', 'PNG', 'JSON']) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.click(`${fig('deltas')} button:text-is("${label}")`),
      ]);
      const file = path.join(outDir, `surgery-${download.suggestedFilename()}`);
      await download.saveAs(file);
      const bytes = fs.readFileSync(file);
      if (label === 'PNG') expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      if (label === 'CSV') {
        const lines = bytes.toString().trim().split('\n');
        expect(lines[0]).toMatch(/^intervention,kind,loss_mean,delta_mean,delta_ci_low,delta_ci_high/);
        expect(lines).toHaveLength(14);
      }
      if (label === 'JSON') {
        const report = JSON.parse(bytes.toString());
        expect(report.format).toBe('poslab-surgery/1');
        expect(report.interventions).toHaveLength(13);
        expect(report.baseline.loss_by_position).toHaveLength(255);
      }
    }

    // The heads sweep: two bars a head (position-blind, removed), each with the lens's role.
    count = await drawCount(page, 'sg');
    await page.selectOption('#c-sg-sweep', 'heads');
    await drawn(page, 'sg', count + 1);
    expect(await title(page, 'deltas')).toMatch(/heads sweep, 16 bars/);
    await page.screenshot({ path: path.join(outDir, 'surgery-heads.png'), fullPage: true });
    count = await drawCount(page, 'sg');
    await clickBar(page, 'head 0.1 removed'); // the maps follow that head
    await drawn(page, 'sg', count + 1);
    await urlWith(page, 'sg.show=4', 'sg.head=0.1');
    expect(await title(page, 'after')).toMatch(/layer 0, head 1: head 0\.1 removed · \w/);
    expect(problems).toEqual([]);
    await context.close();
  }, 240_000);

  it('E2E.SurgeryRefusalKeepsTheFiguresAndATinyModelRunsOnRunWithCancel', async () => {
    const { page, context, problems } = await openPage(
      session.browser,
      `${session.base}#view=surgery&sg.sweep=single&sg.zero=0:2`,
    );
    await drawn(page, 'sg');
    expect(await title(page, 'deltas')).toMatch(/single sweep, 1 bar/);
    const bars = await canvasHash(page, `${fig('deltas')} canvas`);
    // Pairs past the model's 8: refused beside the control, the last figures kept (marked stale).
    await page.fill('#c-sg-zero', '6:12');
    await page.press('#c-sg-zero', 'Tab');
    await page.waitForFunction(() => document.getElementById('c-sg-zero-error')?.textContent.length > 0);
    expect(await page.textContent('#c-sg-zero-error')).toMatch(/6:12/);
    expect(await page.textContent(`${section} .view-status`)).toMatch(
      /^Not updated: .*The plots show the last good settings/,
    );
    expect(await canvasHash(page, `${fig('deltas')} canvas`)).toBe(bars);
    expect(await page.locator(`${fig('deltas')}.stale`).count()).toBe(1);

    // A tiny model waits for Run, says how far its sweep has got, and stops on Cancel.
    await page.selectOption('#c-sg-model', 'tiny');
    await page.selectOption('#c-sg-sweep', 'heads');
    await page.waitForFunction(
      (s) => /press Run/.test(document.querySelector(s)?.textContent ?? ''),
      `${section} .view-status`,
    );
    await page.click(`${section} .sg-run`);
    await page.waitForFunction(
      (s) => /Sweeping: \d+ of \d+/.test(document.querySelector(s)?.textContent ?? ''),
      `${section} .sg-progress`,
    );
    await page.click(`${section} .sg-cancel`);
    await page.waitForFunction(
      (s) => (document.querySelector(s)?.textContent ?? '') === 'Cancelled.',
      `${section} .sg-progress`,
    );
    expect(await page.isDisabled(`${section} .sg-run`)).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  }, 240_000);

  it('E2E.SurgeryRunsTheModelLoadedInTheModelsView', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=surgery&sg.model=loaded`);
    // Nothing loaded yet: Run says where to load one, beside the model.
    await page.waitForFunction(
      (s) => /press Run/.test(document.querySelector(s)?.textContent ?? ''),
      `${section} .view-status`,
    );
    await page.click(`${section} .sg-run`);
    await page.waitForFunction(() => document.getElementById('c-sg-model-error')?.textContent.length > 0);
    expect(await page.textContent('#c-sg-model-error')).toMatch(/no model is loaded in the Models view/);

    // A tiny Llama loaded in the Models view (its worker keeps it), then swept here on Run.
    await page.click('#tab-lm');
    await drawn(page, 'lm');
    const count = await drawCount(page, 'lm');
    await page.setInputFiles('#c-lm-file', files);
    await drawn(page, 'lm', count + 1);
    await page.click('#tab-surgery');
    await page.selectOption('#c-sg-sweep', 'layers');
    const n = await drawCount(page, 'sg');
    await page.click(`${section} .sg-run`);
    await drawn(page, 'sg', n + 1);
    expect(await page.textContent(`${section} .sg-about`)).toMatch(/^model\.safetensors, loaded in the Models view; /);
    expect(await title(page, 'deltas')).toMatch(/layers sweep, 2 bars/);
    // Another bar needs no Run: the sweep is kept, the maps follow.
    await clickBar(page, 'layer 1 NoPE');
    await drawn(page, 'sg', n + 2);
    expect(await title(page, 'after')).toMatch(/layer 1, head 0: layer 1 NoPE/); // that layer's head 0
    await urlWith(page, 'sg.show=2', 'sg.head=1.0');
    await page.screenshot({ path: path.join(outDir, 'surgery-loaded.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  }, 240_000);
});
