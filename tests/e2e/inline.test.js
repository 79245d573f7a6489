// Small jobs on the main thread (worker/inline.js) in Chromium on the real core: once a
// control asks for a small job, the page loads its own copy of the core and later steps run
// there, drawing the very pixels the worker draws; a refused value still lands beside its
// control and keeps the last good plot.
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
    expect(t.inline).toBe(true);
    expect(await page.inputValue('#c-enc-L')).toBe('64');
    expect(await canvasHash(page, heatmap)).toBe(fromWorker);

    // An odd width is refused: the message sits beside D and the plot stays.
    await page.fill('#c-enc-D', '63');
    await page.press('#c-enc-D', 'Tab');
    await page.waitForFunction(() => document.querySelector('#c-enc-D-error')?.textContent.length > 0);
    expect(await page.textContent('#c-enc-D-error')).toMatch(/even/);
    expect(await canvasHash(page, heatmap)).toBe(fromWorker);
    expect(problems).toEqual([]);
    await context.close();
  });
});
