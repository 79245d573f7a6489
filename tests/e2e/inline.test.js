// Small jobs on the main thread (worker/inline.js) in Chromium on the real core: once a
// control asks for a small job, the page loads its own copy of the core and later steps run
// there, drawing the very pixels the worker draws; an error the core raises there still lands
// beside its control and keeps the last good plot.
import { describe, expect, it } from 'vitest';
import { browserForFile, canvasHash, drawn, openPage } from './helpers/browser.js';

const session = browserForFile();
const heatmap = '#view-encodings .fig canvas';

/** Presses `key` on the L slider and waits for the redraw; returns its timing entry. */
async function step(page, key) {
  const before = await page.evaluate(() => globalThis.__poslabTimings.length);
  await page.focus('#view-encodings .control-slider input[type=range]');
  await page.keyboard.press(key);
  await page.waitForFunction((b) => globalThis.__poslabTimings.length > b, before, { timeout: 60_000 });
  return page.evaluate(() => globalThis.__poslabTimings.at(-1));
}

/**
 * Steps right and back until the step back lands inline (the last timing says so). A step is
 * inline only while the measured time per unit predicts under 6 ms, so one slow step on a busy
 * machine (a GC pause, a neighbour's burst) sends the next to the worker until a worker run
 * measures the rate again; the behaviour under test is what an inline step draws, not how
 * often the machine is quiet.
 */
async function inlineAtSameL(page, t) {
  for (let tries = 0; !t.inline && tries < 10; tries++) {
    await step(page, 'ArrowRight');
    t = await step(page, 'ArrowLeft');
  }
  return t;
}

describe('inline jobs', () => {
  it('E2E.SmallStepsRunOnTheMainThreadAndDrawTheWorkersPixels', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#enc.L=64&enc.D=64`);
    await drawn(page, 'enc');
    const fromWorker = await canvasHash(page, heatmap);
    expect((await page.evaluate(() => globalThis.__poslabTimings.at(-1))).inline).toBeUndefined();

    // Right until a step runs inline (the core loads after the first small request), then
    // back to L = 64 on the main thread.
    let right = 0;
    let t = null;
    do {
      t = await step(page, 'ArrowRight');
      right++;
    } while (!t.inline && right < 40);
    expect(t.inline, 'no step ran on the main thread').toBe(true);
    for (let i = 0; i < right; i++) t = await step(page, 'ArrowLeft');
    t = await inlineAtSameL(page, t);
    expect(t.inline).toBe(true);
    expect(await page.inputValue('#c-enc-L')).toBe('64');
    expect(await canvasHash(page, heatmap)).toBe(fromWorker);

    // A refused setting lands beside its control and the plot stays: T5 buckets at L = 64
    // (small, so inline), then a max distance within the exact buckets (combinations.js says so
    // before the core would).
    const before = await page.evaluate(() => globalThis.__poslabTimings.length);
    await page.selectOption('#c-enc-method', 't5');
    await page.waitForFunction((b) => globalThis.__poslabTimings.length > b, before);
    t = await inlineAtSameL(page, await page.evaluate(() => globalThis.__poslabTimings.at(-1)));
    expect(t.inline).toBe(true);
    expect(await page.inputValue('#c-enc-L')).toBe('64');
    const t5 = await canvasHash(page, heatmap);
    await page.fill('#c-enc-maxdist', '4');
    await page.press('#c-enc-maxdist', 'Tab');
    await page.waitForFunction(() => document.querySelector('#c-enc-maxdist-error')?.textContent.length > 0);
    expect(await page.textContent('#c-enc-maxdist-error')).toMatch(/max.distance must be above 8/);
    expect(await canvasHash(page, heatmap)).toBe(t5);
    expect(problems).toEqual([]);
    await context.close();
  });
});
