// The Position lens view in Chromium on the real modules: it opens on the lab's trained model
// (the training module, milliseconds) with the role grid drawn (2 layers × 4 heads), clicking
// a cell picks that head (the link, the profile and the map follow), compare=random draws the
// control's grid beside it (the same model at its random initialisation: every head broad),
// a scaled comparison of the lab's model draws the two grids and marks the pairs the scaling
// changes, the permalink reloads to the same head, and a tiny Llama draws its spectrum with a
// scaling.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserForFile, canvasHash, drawCount, drawn, openPage, outDir, urlWith } from './helpers/browser.js';

const session = browserForFile();
const section = '#view-lens';
const profile = `${section} .fig[data-figure="profile"] canvas`;
const cells = (page) => page.locator(`${section} .fig[data-figure="grid"] .lens-cell`);

describe('view lens', () => {
  it('E2E.LensOpensOnTheLabModelPicksAHeadAndComparesWithItsInitialisation', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=lens`);
    await drawn(page, 'ln');
    expect(await cells(page).count()).toBe(8);
    expect(await page.inputValue('#c-ln-model')).toBe('lab-rope');
    expect(await page.textContent(`${section} .lens-about`)).toMatch(/^a byte-level RoPE model trained by the lab/);
    expect(await page.getAttribute(`${section} .lens-cell[data-layer="0"][data-head="0"]`, 'aria-pressed')).toBe(
      'true',
    );
    expect(await page.textContent(`${section} .lens-badge`)).toBe('invariant ✓'); // RoPE: only i − j
    // The loss by position smoothed as Long context's (1 gives the raw line back).
    expect(await page.textContent(`${section} .fig[data-figure="positions"] .fig-title`)).toMatch(
      /moving average of 8/,
    );
    await page.screenshot({ path: path.join(outDir, 'lens.png'), fullPage: true });

    // A click on layer 1, head 2 picks it: the link, the profile, the map follow.
    const before = await canvasHash(page, profile);
    let count = await drawCount(page, 'ln');
    await page.click(`${section} .lens-cell[data-layer="1"][data-head="2"]`);
    await drawn(page, 'ln', count + 1);
    const url = await urlWith(page, 'ln.head=1.2');
    expect(await canvasHash(page, profile)).not.toBe(before);
    expect(await page.textContent(`${section} .fig[data-figure="profile"] .fig-title`)).toMatch(/layer 1, head 2/);
    expect(await page.textContent(`${section} .fig[data-figure="map"] .fig-title`)).toMatch(/layer 1, head 2/);
    const after = await canvasHash(page, profile);

    // The permalink reopens on the same head and the same curve.
    const again = await openPage(session.browser, url);
    await drawn(again.page, 'ln');
    expect(await again.page.getAttribute(`${section} .lens-cell[data-layer="1"][data-head="2"]`, 'aria-pressed')).toBe(
      'true',
    );
    expect(await canvasHash(again.page, profile)).toBe(after);
    expect(again.problems).toEqual([]);
    await again.context.close();

    // Compared with random weights: a second grid beside the first (its initialisation: no role).
    count = await drawCount(page, 'ln');
    await page.selectOption('#c-ln-compare', 'random');
    await drawn(page, 'ln', count + 1);
    expect(await page.locator(`${section} .lens-one`).count()).toBe(2);
    expect(await cells(page).count()).toBe(16);
    expect(await page.locator(`${section} .lens-one >> nth=1`).textContent()).toMatch(/broad 8/);
    await page.screenshot({ path: path.join(outDir, 'lens-compare.png'), fullPage: true });

    // The keyboard reaches the cells: Enter on one picks it.
    count = await drawCount(page, 'ln');
    await page.focus(`${section} .lens-cell[data-layer="0"][data-head="3"] >> nth=0`);
    await page.keyboard.press('Enter');
    await drawn(page, 'ln', count + 1);
    await urlWith(page, 'ln.head=0.3');

    // The lab's model with a scaling (yarn × 4 by default), as its text task evaluates it.
    await page.selectOption('#c-ln-compare', 'scaled');
    await page.waitForFunction(
      (s) => /pairs the scaling changes/.test(document.querySelector(s)?.textContent ?? ''),
      `${section} .fig[data-figure="spectrum"] .fig-note`,
    );
    expect(await cells(page).count()).toBe(16);
    await page.screenshot({ path: path.join(outDir, 'lens-lab-scaled.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  }, 240_000);

  it('E2E.LensTinyLlamaDrawsItsSpectrumWithAScaling', async () => {
    const { page, context, problems } = await openPage(
      session.browser,
      `${session.base}#view=lens&ln.model=tiny-llama&ln.compare=scaled&ln.scaling=yarn&ln.factor=4`,
    );
    await drawn(page, 'ln');
    expect(await cells(page).count()).toBe(16); // as configured, and scaled beside it
    expect(await page.isVisible(`${section} .fig[data-figure="spectrum"] canvas`)).toBe(true);
    expect(await page.textContent(`${section} .fig[data-figure="spectrum"] .fig-note`)).toMatch(
      /pairs the scaling changes/,
    );
    expect(await page.textContent(`${section} .lens-about`)).toMatch(/^RANDOM WEIGHTS/);
    await page.screenshot({ path: path.join(outDir, 'lens-tiny-llama.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  }, 240_000);
});
