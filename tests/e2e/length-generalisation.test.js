// The Length generalisation view in Chromium on the real training module, kept to seconds: two
// methods of the small model for a few dozen steps. Train moves the loss curves and renders
// the results (plots, table, attention maps); Stop ends a long run and keeps what finished; a
// reload of the same setting restores the finished runs from IndexedDB.
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

describe('view length-generalisation', () => {
  it('E2E.LengthGeneralisationDrawsAFireModelsBias', async () => {
    const url = `${session.base}#view=length-generalisation&lg.methods=fire&lg.size=small&lg.N=3&lg.steps=30&lg.seed=9`;
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
    const url = `${session.base}#view=length-generalisation&lg.methods=alibi,none&lg.size=small&lg.N=4&lg.steps=60&lg.seed=7`;
    const { page, context, problems } = await openPage(session.browser, url);
    await settled(page);
    expect(await progressText(page)).toMatch(/0 of 2 runs cached/);
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

    // Stop: a long budget, stopped while it runs; nothing finished, nothing kept, Train again enabled.
    await page.goto(
      `${session.base}#view=length-generalisation&lg.methods=rope&lg.size=small&lg.N=4&lg.steps=20000&lg.seed=8`,
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
