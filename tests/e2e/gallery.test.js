// The seed gallery in Chromium: a card's live thumbnail is computed only once the card nears
// the viewport, all of them on one worker with one job out at a time, in a box that has its
// size before the figure arrives; scrolled through, every thumbnail ends a picture.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserForFile, openPage, outDir } from './helpers/browser.js';

const session = browserForFile();

const thumbs = '#view-gallery .card figure.thumb';
const FAR = 300; // px below the viewport's bottom: twice the gallery's look-ahead margin
const NOT_COMPUTED = ['waiting', 'label']; // a label (a view that needs a model) never computes

// Counts the gallery worker's jobs as the page sends them (its worker is started with the name
// 'gallery'): workers started, jobs sent, and the most out at once.
function countGalleryJobs() {
  const Native = window.Worker;
  const jobs = { workers: 0, sent: 0, out: 0, maxOut: 0 };
  window.__galleryJobs = jobs;
  window.Worker = class extends Native {
    constructor(url, options) {
      super(url, options);
      this.gallery = options?.name === 'gallery';
      if (!this.gallery) return;
      jobs.workers++;
      this.addEventListener('message', ({ data }) => {
        if (data.type === 'result' || data.type === 'error') jobs.out--;
      });
    }
    postMessage(message, transfer) {
      if (this.gallery) {
        jobs.sent++;
        jobs.maxOut = Math.max(jobs.maxOut, ++jobs.out);
      }
      return super.postMessage(message, transfer);
    }
  };
}

// Each thumbnail: its state, where its top is against the viewport's bottom, its box's size.
const snapshot = (page) =>
  page.$$eval(thumbs, (els) =>
    els.map((el) => {
      const box = el.querySelector('.thumb-box').getBoundingClientRect();
      return { state: el.dataset.state, below: box.top - innerHeight, width: box.width, height: box.height };
    }),
  );

// Distinct colours in the canvas's pixels (1: a blank box).
const colours = (canvas) =>
  canvas.evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let j = 0; j < d.length && seen.size < 64; j += 4) seen.add((d[j] << 16) | (d[j + 1] << 8) | d[j + 2]);
    return seen.size;
  });

describe('view gallery', () => {
  it('E2E.GalleryThumbnailsComputeWhenScrolledToAndDraw', async () => {
    // One column of cards: most are screens below the fold.
    const { page, context, problems } = await openPage(session.browser, 'about:blank', { width: 560, height: 700 });
    await context.addInitScript(countGalleryJobs);
    await page.goto(`${session.base}#view=gallery`);
    await page.waitForSelector(thumbs);
    const before = await snapshot(page);
    expect(before.length).toBeGreaterThanOrEqual(5);
    for (const t of before) expect(t.height, 'the box is sized before it draws').toBeGreaterThan(50);

    // The first card draws; the cards far below are still waiting, never sent to the worker.
    await page.waitForFunction((s) => document.querySelector(s)?.dataset.state === 'drawn', thumbs, {
      timeout: 60_000,
    });
    await page.waitForTimeout(1000);
    const far = (await snapshot(page)).filter((t) => t.below > FAR);
    expect(far.length, 'cards far below the fold').toBeGreaterThanOrEqual(2);
    for (const t of far) expect(NOT_COMPUTED).toContain(t.state);
    const sentAtTop = await page.evaluate(() => window.__galleryJobs.sent);
    expect(sentAtTop).toBeLessThan(before.length - far.length + 1);

    // Scrolled through half a screen at a time: what is far below still waits.
    const step = 350;
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    for (let y = step; y < height; y += step) {
      await page.evaluate((top) => window.scrollTo(0, top), y);
      await page.waitForTimeout(150);
      for (const t of await snapshot(page)) if (t.below > FAR) expect(NOT_COMPUTED, `at ${y}px`).toContain(t.state);
    }
    await page.waitForFunction(
      (s) => [...document.querySelectorAll(s)].every((el) => ['drawn', 'label'].includes(el.dataset.state)),
      thumbs,
      { timeout: 120_000 },
    );

    const after = await snapshot(page);
    after.forEach((t, i) => {
      expect([t.width, t.height], `thumbnail ${i} kept its box`).toEqual([before[i].width, before[i].height]);
    });
    const jobs = await page.evaluate(() => window.__galleryJobs);
    const live = after.filter((t) => t.state === 'drawn').length;
    expect(jobs).toMatchObject({ workers: 1, sent: live, out: 0, maxOut: 1 });

    const canvases = page.locator(`${thumbs} canvas`);
    expect(await canvases.count()).toBe(live);
    for (let i = 0; i < live; i++) expect(await colours(canvases.nth(i)), `thumbnail ${i}`).toBeGreaterThan(1);

    // Wider, the thumbnails redraw at their new size and are still pictures.
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(300);
    for (let i = 0; i < live; i++) expect(await colours(canvases.nth(i)), `thumbnail ${i}, wide`).toBeGreaterThan(1);
    await page.locator('#view-gallery').screenshot({ path: path.join(outDir, 'gallery.png') });
    expect(problems).toEqual([]);
    await context.close();
  });
});
