// The Length generalisation view in Chromium on the real training module, kept to seconds: two
// methods of the small model for a few dozen steps. Opening shows the bundled example, labelled;
// Train moves the loss curves and renders the results (plots, table, attention maps); a reload
// of the same setting restores the finished runs from IndexedDB; after the methods change, the
// runs of methods no longer selected leave every figure and those of other settings are marked;
// Stop ends a long run and keeps what finished.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserForFile, canvasHash, openPage, outDir } from './helpers/browser.js';

const session = browserForFile();

const section = '#view-length-generalisation';
const progressText = (page) => page.textContent(`${section} .lg-progress`);
// The view computes nothing on the core's worker until Train, so it waits for its own status
// line (cached runs counted or restored) rather than the page's core-ready flag.
const settled = (page) =>
  page.waitForFunction(
    (s) => /cached|restored/.test(document.querySelector(s)?.textContent ?? ''),
    `${section} .lg-progress`,
  );

const tableMethods = (page) =>
  page.$$eval(`${section} .lg-table tr td:nth-child(2)`, (cells) => cells.map((c) => c.textContent));
const heatmapRows = (page) =>
  page.$eval(`${section} [data-figure="heatmap"] canvas`, (c) => c.getAttribute('aria-label'));

describe('view length-generalisation', () => {
  it('E2E.LengthGeneralisationOpensOnTheLabelledExample', async () => {
    const url = `${session.base}#view=length-generalisation&lg.seed=11`;
    const { page, context, problems } = await openPage(session.browser, url);
    await settled(page);
    expect(await page.textContent(`${section} .lg-source`)).toMatch(/^Example, not your settings/);
    expect(await page.getAttribute(`${section} .lg-source`, 'title')).toMatch(
      /poslab train --task copy --position rope/,
    );
    // Every result figure is drawn and says it is the example; the table ranks the example's methods.
    for (const name of ['loss', 'accuracy', 'heatmap', 'tokens']) {
      const fig = page.locator(`${section} [data-figure="${name}"]`);
      expect(await fig.isVisible(), name).toBe(true);
      expect(await fig.locator('.fig-note').textContent(), name).toMatch(/^Example/);
    }
    expect((await tableMethods(page)).sort()).toEqual(['ALiBi', 'NoPE', 'RoPE', 'learned absolute']);
    expect(await page.textContent(`${section} .lg-ours`)).toMatch(/^In the example/);
    // The native command is these settings' (N = 8 by default; a preset's N follows, below).
    expect(await page.textContent(`${section} details.native`)).toMatch(/--train-len 8 .*--seed 11/);
    expect(await page.locator(`${section} details.claims-panel .claims-row`).count()).toBeGreaterThan(0); // Claims panel
    await page.screenshot({ path: path.join(outDir, 'length-generalisation-example.png'), fullPage: true });
    // Quick preset: the settings move to the example's, and the progress line says so.
    await page.click(`${section} .lg-quick`);
    await page.waitForFunction(
      (s) => /^Quick preset set/.test(document.querySelector(s)?.textContent ?? ''),
      `${section} .lg-progress`,
    );
    const checked = await page.$$eval(`${section} .lg-methods input:checked`, (boxes) => boxes.map((b) => b.value));
    expect(checked).toEqual(['learned', 'rope', 'alibi', 'none']);
    expect(await page.inputValue(`${section} #c-lg-N`)).toBe('5');
    expect(await page.textContent(`${section} details.native`)).toMatch(/--train-len 5 /);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('E2E.LengthGeneralisationDrawsAFireModelsBias', async () => {
    const url = `${session.base}#view=length-generalisation&lg.methods=fire&lg.size=small&lg.N=3&lg.steps=30&lg.seed=9&lg.seeds=1`;
    const { page, context, problems } = await openPage(session.browser, url);
    await settled(page);
    await page.click(`${section} .lg-train`);
    await page.waitForFunction(
      (s) => document.querySelector(s)?.textContent.startsWith('Done'),
      `${section} .lg-progress`,
      { timeout: 120_000 },
    );
    // The small model's 2 heads: their attention maps, and FIRE's bias beside them.
    expect(await page.locator(`${section} .lg-attention canvas`).count()).toBe(2);
    expect(await page.locator(`${section} .lg-fire canvas`).count()).toBe(2);
    expect(await page.textContent(`${section} .lg-fire-about`)).toMatch(/FIRE's learned bias/);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('E2E.LengthGeneralisationTrainsStopsAndRestores', async () => {
    const url = `${session.base}#view=length-generalisation&lg.methods=alibi,none&lg.size=small&lg.N=4&lg.steps=60&lg.seed=7&lg.seeds=2`;
    const { page, context, problems } = await openPage(session.browser, url);
    await settled(page);
    expect(await progressText(page)).toMatch(/0 of 4 runs cached/); // two methods × two seeds
    const loss = `${section} [data-figure="loss"] canvas`;
    const before = await canvasHash(page, loss);
    await page.click(`${section} .lg-train`);
    await page.waitForFunction(
      (s) => document.querySelector(s)?.textContent.startsWith('Done'),
      `${section} .lg-progress`,
      {
        timeout: 120_000,
      },
    );
    expect(await canvasHash(page, loss)).not.toBe(before);
    expect(await page.locator(`${section} .lg-table tr`).count()).toBe(3); // header + 2 methods
    const accuracy = await page.textContent(`${section} .lg-table`);
    expect(accuracy).toMatch(/ALiBi/);
    expect(accuracy).toMatch(/NoPE/);
    // Each method's row: its 2 seeds, in-distribution exact match as mean ± sd and a dot a seed.
    expect(await page.$$eval(`${section} .lg-table tr td:nth-child(3)`, (c) => c.map((x) => x.textContent))).toEqual([
      '2',
      '2',
    ]);
    expect(await page.textContent(`${section} .lg-table tr:nth-child(2) td:nth-child(4)`)).toMatch(
      /^\d\.\d\d ± \d\.\d\d/,
    );
    expect(await page.locator(`${section} .lg-table td:nth-child(4) .lg-dot`).count()).toBe(4);
    expect(await page.locator(`${section} .lg-attention canvas`).count()).toBe(2); // 2 heads
    expect(await page.textContent(`${section} .lg-attention-about`)).toMatch(/answer tokens right/);
    await page.screenshot({ path: path.join(outDir, 'length-generalisation.png'), fullPage: true });

    // A reload of the same setting: both runs come back from IndexedDB.
    const drawnHash = await canvasHash(page, `${section} [data-figure="accuracy"] canvas`);
    await page.reload();
    await settled(page);
    await page.waitForFunction(
      (s) => /restored/.test(document.querySelector(s)?.textContent ?? ''),
      `${section} .lg-progress`,
    );
    expect(await page.locator(`${section} .lg-table tr`).count()).toBe(3);
    expect(await canvasHash(page, `${section} [data-figure="accuracy"] canvas`)).toBe(drawnHash);
    expect(await page.textContent(`${section} .lg-source`)).toBe('');

    // NoPE unticked: its run leaves the table and the heatmap, ALiBi's stays as these settings' own.
    await page.uncheck(`${section} .lg-methods input[value="none"]`);
    await page.waitForFunction((s) => document.querySelectorAll(s).length === 2, `${section} .lg-table tr`);
    expect(await tableMethods(page)).toEqual(['ALiBi']);
    expect(await page.locator(`${section} .fig.lg-previous`).count()).toBe(0);
    // Another N (nothing of it trained): ALiBi's run of N = 4 stays, greyed and marked as the
    // previous run's; NoPE does not come back.
    await page.fill(`${section} #c-lg-N`, '5');
    await page.press(`${section} #c-lg-N`, 'Enter');
    await page.waitForFunction(
      (s) => /^From the previous run/.test(document.querySelector(s)?.textContent ?? ''),
      `${section} .lg-source`,
    );
    expect(await tableMethods(page)).toEqual(['ALiBi']);
    expect(await page.locator(`${section} .fig.lg-previous`).count()).toBe(4); // loss, accuracy, heatmap, tokens
    expect(await page.textContent(`${section} [data-figure="heatmap"] .fig-note`)).toMatch(/^From the previous run/);

    // Stop: a long budget, stopped while it runs; nothing finished, nothing kept, Train again enabled.
    await page.goto(
      `${session.base}#view=length-generalisation&lg.methods=rope&lg.size=small&lg.N=4&lg.steps=20000&lg.seed=8&lg.seeds=1`,
    );
    await settled(page);
    await page.click(`${section} .lg-train`);
    await page.waitForFunction(
      (s) => /1 running/.test(document.querySelector(s)?.textContent ?? ''),
      `${section} .lg-progress`,
    );
    await page.waitForTimeout(1500);
    await page.click(`${section} .lg-stop`);
    await page.waitForFunction(
      (s) => /^Stopped/.test(document.querySelector(s)?.textContent ?? ''),
      `${section} .lg-progress`,
    );
    expect(await page.isEnabled(`${section} .lg-train`)).toBe(true);
    await page.screenshot({ path: path.join(outDir, 'length-generalisation-stopped.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  }, 240_000);
});
