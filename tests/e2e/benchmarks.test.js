// The Benchmarks view in Chromium on the committed H100 files: every kernel's charts drawn,
// the device, driver and date on the page, and the PyTorch rows labelled "peer, not checked".
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { canvasColours, launch, openPage, outDir } from './helpers/browser.js';

let browser;
let base;
beforeAll(async () => {
  base = inject('baseUrl');
  browser = await launch();
});
afterAll(() => browser?.close());

describe('view benchmarks', () => {
  it('E2E.BenchmarksRendersCommittedH100Files', async () => {
    const section = '#view-benchmarks';
    const { page, context, problems } = await openPage(browser, `${base}#view=benchmarks`);
    await page.waitForFunction(
      (s) => /results files/.test(document.querySelector(s)?.textContent ?? ''),
      `${section} .bench-status`,
    );
    const devices = await page.locator(`${section} .bench-device`).allTextContents();
    expect(devices.length).toBeGreaterThanOrEqual(2);
    for (const d of devices) expect(d).toMatch(/NVIDIA H100.*driver 580\.159\.04.*2026-11-23/);
    const kernels = await page
      .locator(`${section} .bench-kernel`)
      .evaluateAll((els) => els.map((e) => e.dataset.kernel));
    expect(new Set(kernels)).toEqual(new Set(['alibi', 'attention', 'rope', 'sinusoidal', 't5']));
    // every chart has drawn something besides the background
    const colours = await canvasColours(page, section);
    expect(colours.length).toBe(2 * kernels.length);
    for (const c of colours) expect(c).toBeGreaterThan(3);
    // torch rows: in the table as unchecked, in the legend as such
    const torchStatus = await page
      .locator(`${section} .bench-table tr`, { hasText: 'torch-' })
      .evaluateAll((rows) => [...new Set(rows.map((r) => r.lastElementChild.textContent))]);
    expect(torchStatus).toEqual(['peer, not checked']);
    expect(await page.locator(`${section} tr[data-status="passed"]`).count()).toBeGreaterThan(100);
    await page.screenshot({ path: path.join(outDir, 'benchmarks.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
