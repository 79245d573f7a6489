// Links that used to draw nothing, and one slow figure holding every other: in Chromium on
// the real core. A refused combination in a link falls back (largest axis clamped to the
// cell cap, otherwise the view's defaults) and says so; nothing claims a "last good plot"
// that was never drawn; a 4096 × 4096 similarity job blocks no other view and is cancelled
// by a newer similarity request.
import { describe, expect, it } from 'vitest';
import { browserForFile, canvasColours, drawCount, drawn, openPage } from './helpers/browser.js';

const session = browserForFile();
const open = (hash) => openPage(session.browser, `${session.base}${hash}`);
// Bounds below are hang guards, not timing claims.
const drawnWithin = (page, prefix, n, timeout) => drawn(page, prefix, n, { timeout });

describe('reliability', () => {
  it('Reliability.OverCapLinkIsClampedDrawnAndSaysSo', async () => {
    const { page, context, problems } = await open('#view=encodings&enc.L=8192&enc.D=4096');
    await drawnWithin(page, 'enc', 1, 60_000);
    const colours = await canvasColours(page, '#view-encodings .fig:first-of-type');
    expect(colours.length).toBeGreaterThan(0);
    expect(colours[0], 'the heatmap is blank').toBeGreaterThan(2);
    const message = await page.textContent('#messages');
    expect(await page.isVisible('#messages')).toBe(true);
    expect(message).toMatch(/enc\.L.*clamped to 2048/);
    expect(await page.inputValue('#c-enc-L')).toBe('2048');
    expect(await page.textContent('#view-encodings .view-status')).not.toMatch(/last good/);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Reliability.RefusedSettingLandsBesideItsControl', async () => {
    // llama3 with low_freq_factor > high_freq_factor (the core refuses it with field
    // 'lowFreqFactor'; combinations.js says so first). A regex on the message used to put it
    // beside the factor f. As a link, it falls back to the view's defaults and says so.
    const link = await open('#view=extrapolation&ext.scaling=llama3&ext.lowff=5&ext.highff=4');
    await drawnWithin(link.page, 'ext', 1, 60_000);
    expect(await link.page.textContent('#messages')).toMatch(/ext\.lowff.*low_freq_factor/);
    expect(link.problems).toEqual([]);
    await link.context.close();

    const { page, context, problems } = await open('#view=extrapolation&ext.scaling=llama3');
    await drawnWithin(page, 'ext', 1, 60_000);
    await page.fill('#c-ext-lowff', '5');
    await page.press('#c-ext-lowff', 'Tab');
    const lowffError = () => document.querySelector('#c-ext-lowff-error')?.textContent.length > 0;
    await page.waitForFunction(lowffError, null, { timeout: 60_000 });
    expect(await page.textContent('#c-ext-lowff-error')).toMatch(/low_freq_factor/);
    expect(await page.textContent('#c-ext-factor-error')).toBe('');
    // Moving another control does not pull the error onto that control.
    await page.fill('#c-ext-factor', '3');
    await page.press('#c-ext-factor', 'Tab');
    await page.waitForFunction(lowffError, null, { timeout: 60_000 });
    expect(await page.textContent('#c-ext-factor-error')).toBe('');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Reliability.MalformedCustomMaskLinkDrawsTheDefaultsAndSaysSo', async () => {
    const { page, context, problems } = await open('#view=attention&att.mask=custom&att.custom=8.AA');
    await drawnWithin(page, 'att', 1, 60_000);
    for (const n of await canvasColours(page, '#view-attention')) expect(n, 'a canvas is blank').toBeGreaterThan(2);
    expect(await page.isVisible('#messages')).toBe(true);
    expect(await page.textContent('#messages')).toMatch(/att\.custom.*defaults/);
    expect(await page.inputValue('#c-att-mask')).toBe('causal');
    expect(await page.textContent('#view-attention .view-status')).not.toMatch(/last good/);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Reliability.NoLastGoodPlotClaimBeforeAnyPlot', async () => {
    // Every value is valid, but there is no word to attend over: the link falls back to the
    // view's defaults (combinations.js) and says so, and nothing claims a last good plot.
    const { page, context, problems } = await open('#view=attention&att.text=');
    await drawnWithin(page, 'att', 1, 60_000);
    expect(await page.textContent('#messages')).toMatch(/att\.text.*word/);
    expect(await page.textContent('#view-attention .view-status')).not.toMatch(/last good/);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Reliability.SlowSimilarityBlocksNoOtherViewAndIsPreempted', async () => {
    const { page, context, problems } = await open('#view=similarity&sim.L=4096&sim.D=4096');
    await page.waitForTimeout(1500); // the big job is running by now
    await page.click('#tab-encodings');
    await drawnWithin(page, 'enc', 1, 10_000);
    for (const n of await canvasColours(page, '#view-encodings')) expect(n).toBeGreaterThan(2);

    // Back to similarity (the same settings: the running job goes on), then a new size.
    await page.click('#tab-similarity');
    const before = await drawCount(page, 'sim');
    expect(before).toBe(0);
    await page.fill('#c-sim-L', '64');
    await page.press('#c-sim-L', 'Tab');
    await drawnWithin(page, 'sim', 1, 10_000);
    expect(await page.textContent('#view-similarity .fig-title >> nth=0')).toContain('64 × 64');
    expect(await page.textContent('#view-similarity .view-status')).toBe(''); // the cancelled job is no failure
    const timings = await page.evaluate(() => globalThis.__poslabTimings.filter((t) => t.view === 'sim').length);
    expect(timings).toBe(1); // the 4096 × 4096 result never arrives
    expect(problems).toEqual([]);
    await context.close();
  });
});
