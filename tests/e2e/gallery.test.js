// The seed gallery in Chromium: every card's live thumbnail is computed only once the card
// nears the viewport, and each ends up a real picture (not one flat colour).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserForFile, openPage, outDir } from './helpers/browser.js';

const session = browserForFile();

const thumbs = '#view-gallery .card .thumb canvas';

describe('view gallery', () => {
  it('E2E.GalleryThumbnailsDrawWhenScrolledTo', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=gallery`, {
      width: 1000,
      height: 500,
    });
    await page.waitForSelector(thumbs);
    const count = await page.locator(thumbs).count();
    expect(count).toBeGreaterThanOrEqual(5);
    // The first row draws; the last card, screens below, has not been computed yet.
    await page.waitForFunction((s) => document.querySelector(s)?.dataset.drawn === 'true', thumbs, {
      timeout: 60_000,
    });
    await page.waitForTimeout(500);
    expect(await page.locator(thumbs).last().getAttribute('data-drawn')).toBeNull();
    for (let i = 0; i < count; i++) {
      const canvas = page.locator(thumbs).nth(i);
      await canvas.scrollIntoViewIfNeeded();
      await page.waitForFunction(([s, k]) => document.querySelectorAll(s)[k]?.dataset.drawn === 'true', [thumbs, i], {
        timeout: 60_000,
      });
      const colours = await canvas.evaluate((c) => {
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const seen = new Set();
        for (let j = 0; j < d.length && seen.size < 50; j += 4 * 5) seen.add((d[j] << 16) | (d[j + 1] << 8) | d[j + 2]);
        return seen.size;
      });
      expect(colours, `thumbnail ${i} is a picture`).toBeGreaterThan(2);
    }
    await page.locator('#view-gallery').screenshot({ path: path.join(outDir, 'gallery-thumbnails.png') });
    expect(problems).toEqual([]);
    await context.close();
  });
});
