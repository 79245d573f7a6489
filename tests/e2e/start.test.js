// The landing, in Chromium: the page's address with no hash shows what PosLab is and its routes
// in one screen on a laptop and on a phone, each route opens its view drawn, and a link written
// before the landing existed still opens its view. Its two pictures are the README's
// (docs/images/start-1280.png, start-390.png), rewritten by every run so they stay current.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { START_ROUTES } from '../../web/src/content/start.js';
import { viewNamed } from '../../web/src/state/registry.js';
import { browserForFile, drawn, openPage, outDir, PHONE } from './helpers/browser.js';

const session = browserForFile();
const pictures = path.resolve(outDir, '../../docs/images');

/** What of the landing lies below the first screen: its routes and last note, by text. */
const belowTheFold = (page) =>
  page.$$eval('#view-start .start-route, #view-start .view-intro > p:last-child', (els) =>
    els.filter((e) => e.getBoundingClientRect().bottom > window.innerHeight).map((e) => e.textContent.slice(0, 40)),
  );

describe('the landing', () => {
  it.each([
    { width: 1280, height: 900 },
    { ...PHONE }, // 390 × 844
  ])('Landing.OneScreenWithEveryRouteAt$width', async (viewport) => {
    const { page, context, problems } = await openPage(session.browser, session.base, viewport);
    await page.locator('#view-start .start-route').first().waitFor();
    expect(await page.locator('#view-start .start-route').count()).toBe(START_ROUTES.length);
    expect(await page.textContent('#view-start .lead')).toMatch(/PosLab/);
    expect(await page.evaluate(() => document.scrollingElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
    expect(page.url().includes('#'), 'the landing writes no hash').toBe(false);
    fs.mkdirSync(pictures, { recursive: true });
    await page.screenshot({ path: path.join(pictures, `start-${viewport.width}.png`) });
    expect(await belowTheFold(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Landing.EveryRouteOpensItsViewDrawn', async () => {
    const { page, context, problems } = await openPage(session.browser, 'about:blank');
    for (const route of START_ROUTES) {
      const { view } = route.state;
      await page.goto(session.base); // the landing, loaded afresh
      await page.click(`#view-start a.start-route:text-is("${route.label}")`);
      await page.locator(`#view-${view}`).waitFor();
      expect(page.url(), route.label).toContain(`view=${view}`);
      const { prefix } = viewNamed(view);
      // The views that compute on opening draw. Length generalisation waits for Train, after
      // loading its bundled runs: the next route's navigation would abort those loads.
      if (view !== 'length-generalisation') await drawn(page, prefix);
      else await page.waitForLoadState('networkidle');
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Landing.OldLinksStillOpenTheirView', async () => {
    for (const [hash, view] of [
      ['#enc.L=100', 'encodings'], // Encodings was the view of a link naming none
      ['#view=encodings', 'encodings'],
      ['#view=rope-inspector', 'rope-inspector'],
    ]) {
      const { page, context, problems } = await openPage(session.browser, `${session.base}${hash}`);
      await page.locator(`#view-${view}`).waitFor();
      expect(await page.isVisible('#view-start'), hash).toBe(false);
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it('Landing.SeedWordsLinkToTheirGalleryCard', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=encodings`);
    const link = page.locator('#view-encodings .source a:text-is("seed 004")');
    await link.waitFor();
    expect(await page.textContent('#view-encodings .source')).toContain('source documents PosLab checks');
    await link.click();
    await page.locator('#seed-004').waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'seed-004');
    const top = await page.$eval('#seed-004', (c) => c.getBoundingClientRect().top);
    expect(top).toBeGreaterThanOrEqual(0);
    expect(top).toBeLessThan(900);
    expect(problems).toEqual([]);
    await context.close();
  });
});
