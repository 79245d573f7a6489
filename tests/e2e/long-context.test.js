// The Long context view in Chromium on the real language-model module, kept fast: the tiny
// random GPT-NeoX (trained context 64) at 2 × its context. It loads and draws one curve per
// scaling, redraws when the smoothing changes (without recomputing), and its permalink
// reloads to the same picture; the random-weights label is on the page.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserForFile, canvasHash, drawCount, drawn, openPage, outDir, urlWith } from './helpers/browser.js';

const session = browserForFile();

describe('view long-context', () => {
  it('E2E.LongContextTinyRunsRedrawsReloads', async () => {
    const section = '#view-long-context';
    const canvas = `${section} .fig canvas`;
    const { page, problems } = await openPage(
      session.browser,
      `${session.base}#view=long-context&lc.model=tiny&lc.times=2&lc.smooth=1`,
    );
    await drawn(page, 'lc');
    expect(await page.textContent(`${section} .lc-about`)).toMatch(/RANDOM WEIGHTS/);
    expect(await page.textContent(`${section} .lc-progress`)).toBe('Done.');
    const before = await canvasHash(page, canvas);
    const count = await drawCount(page, 'lc');
    await page.fill('#c-lc-smooth', '16');
    await page.press('#c-lc-smooth', 'Tab');
    await page.waitForFunction(
      (s) => document.querySelector(s)?.textContent.includes('moving average of 16'),
      `${section} .fig`,
    );
    expect(await canvasHash(page, canvas)).not.toBe(before);
    expect(await drawCount(page, 'lc')).toBeGreaterThanOrEqual(count);
    const url = await urlWith(page, 'lc.smooth=16');
    const after = await canvasHash(page, canvas);
    await page.screenshot({ path: path.join(outDir, 'long-context.png'), fullPage: true });
    const again = await openPage(session.browser, url);
    await drawn(again.page, 'lc');
    expect(await again.page.inputValue('#c-lc-smooth')).toBe('16');
    expect(await canvasHash(again.page, canvas)).toBe(after);
    expect(again.problems).toEqual([]);
    expect(problems).toEqual([]);
    await again.context.close();
  }, 240_000);

  // Each scaling's curve is drawn as its pass ends, not after all six; and the comparison starts
  // with every line alike ("all lines"), none faded.
  it('E2E.LongContextDrawsEachCurveAsItArrivesAllAlike', async () => {
    const section = '#view-long-context';
    const { page, context, problems } = await openPage(
      session.browser,
      `${session.base}#view=long-context&lc.model=tiny&lc.times=2&lc.smooth=1`,
    );
    await drawn(page, 'lc');
    expect(await page.getAttribute(`${section} .line-picker button:text-is("all lines")`, 'aria-pressed')).toBe('true');
    // What the progress line and the plot say at each change of the line, for a new run.
    await page.evaluate((s) => {
      const line = document.querySelector(`${s} .lc-progress`);
      const fig = document.querySelector(`${s} .fig[data-figure="curves"]`);
      globalThis.__lcSeen = [];
      new MutationObserver(() => globalThis.__lcSeen.push([line.textContent, Number(fig.dataset.curves)])).observe(
        line,
        { childList: true, characterData: true, subtree: true },
      );
    }, section);
    await page.fill('#c-lc-factor', '2');
    await page.press('#c-lc-factor', 'Tab');
    await page.waitForFunction(() => globalThis.__lcSeen.some(([t]) => t === 'Done.'), null, { timeout: 120_000 });
    const seen = await page.evaluate(() => globalThis.__lcSeen);
    const during = seen.map(([t, n]) => [Number(/^Method (\d) of 6/.exec(t)?.[1]), n]).filter(([k]) => k >= 2);
    expect(during.length, JSON.stringify(seen)).toBeGreaterThan(0);
    for (const [k, n] of during) expect(n, `curves drawn while method ${k} of 6 runs`).toBe(k - 1);
    expect(await page.getAttribute(`${section} .fig[data-figure="curves"]`, 'data-curves')).toBe('6');
    expect(problems).toEqual([]);
    await context.close();
  }, 240_000);

  // The view opens on the lab's trained byte-level model, shipped with the page: its curves are
  // drawn at once, on text it never trained on, and labelled as a trained model.
  it('E2E.LongContextOpensOnTheShippedTrainedModel', async () => {
    const section = '#view-long-context';
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=long-context`);
    await drawn(page, 'lc');
    const about = await page.textContent(`${section} .lc-about`);
    expect(about).toMatch(/^a byte-level RoPE model trained by the lab/);
    expect(about).toMatch(/held-out tenth/);
    expect(about).not.toMatch(/RANDOM WEIGHTS/);
    expect(await page.inputValue('#c-lc-model')).toBe('lab-rope');
    // Retrained here for a few steps on the lab's sample: its own curves, said to be.
    await page.fill(`${section} .lc-retrain input`, '20');
    await page.click(`${section} .lc-retrain-button`);
    await page.waitForFunction(
      (s) => /retrained here \(20 steps on the lab’s sample/.test(document.querySelector(s)?.textContent ?? ''),
      `${section} .lc-about`,
      { timeout: 60_000 },
    );
    expect(problems).toEqual([]);
    await context.close();
  });
});
