// What a newcomer meets, checked in Chromium: every view opens with something drawn in every
// figure it shows, without pressing Run; axe-core (pinned in package.json) finds no
// accessibility violation (WCAG 2.x A and AA) on any view at 1280 px in the light theme, nor
// on any view at phone width (390 px) in the light and dark themes; and the view tabs work
// from the keyboard alone (Tab onto them, arrows, Home, End) as the WAI-ARIA tabs pattern has it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { VIEWS } from '../../web/src/state/registry.js';
import { browserForFile, openPage, PHONE } from './helpers/browser.js';

const session = browserForFile();
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * Visible figure canvases of a view that show no colour yet. Axes, text and grid lines are
 * grey in both themes; data (colour maps, the series palette) is saturated, so a canvas with
 * fewer than 8 saturated pixels (a lone point is about 12) has drawn nothing. The gallery draws its thumbnails as they
 * near the viewport: there, only those on the first screen count.
 */
function blankFigures(page, name) {
  return page.evaluate((view) => {
    const canvases = [...document.querySelectorAll(`#view-${view} canvas`)].filter((c) => {
      if (c.offsetParent === null || c.width === 0) return false;
      return view !== 'gallery' || c.getBoundingClientRect().top < window.innerHeight;
    });
    const blank = canvases.filter((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let saturated = 0;
      for (let i = 0; i < d.length && saturated < 8; i += 4) {
        if (d[i + 3] > 0 && Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 40) saturated++;
      }
      return saturated < 8;
    });
    return { count: canvases.length, blank: blank.map((c) => c.closest('.fig, .thumb')?.textContent.slice(0, 60)) };
  }, name);
}

/** The figures still blank, or a line saying none is shown yet. */
async function notYetDrawn(page, name) {
  const { count, blank } = await blankFigures(page, name);
  return count ? blank : ['no figure shown yet'];
}

async function axeViolations(page) {
  await page.evaluate(AXE); // evaluated by the debugger, which the page's CSP does not cover
  const result = await page.evaluate(
    (tags) => globalThis.axe.run(document, { runOnly: { type: 'tag', values: tags } }),
    WCAG,
  );
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('a newcomer', () => {
  it.each(VIEWS.map((v) => v.name))('Newcomer.%s: drawn on opening, no axe violation at 1280 px', async (name) => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=${name}&theme=light`);
    await page.locator(`#view-${name} .view-intro h2`).waitFor();
    // The landing (start) draws no figure: its routes are links (tests/e2e/start.test.js).
    if (name !== 'start') {
      await expect.poll(() => notYetDrawn(page, name), { timeout: 90_000, interval: 500 }).toEqual([]);
    }
    expect(await page.textContent(`#view-${name} .lead`)).toMatch(/\w/);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it.each(VIEWS.flatMap((v) => ['light', 'dark'].map((theme) => [v.name, theme])))(
    'Newcomer.%s: no axe violation, %s, phone width',
    async (name, theme) => {
      const url = `${session.base}#view=${name}&theme=${theme}`;
      const { page, context, problems } = await openPage(session.browser, url, { ...PHONE, colorScheme: theme });
      await page.locator(`#view-${name} .view-intro h2`).waitFor();
      await expect
        .poll(async () => (await blankFigures(page, name)).blank, { timeout: 90_000, interval: 500 })
        .toEqual([]);
      expect(await page.isVisible('#view-menu'), 'the views are one menu on a phone').toBe(true);
      expect(await page.isVisible('#tabs'), 'no tab row on a phone').toBe(false);
      expect(await axeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    },
  );

  it('Newcomer.TabsByKeyboardAlone', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=similarity`);
    await page.locator('#view-similarity').waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.id ?? '');
    // Tab from the top of the page: the skip link, then the theme button, then the chosen tab only.
    for (let i = 0; i < 6 && (await focused()) !== 'tab-similarity'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('tab-similarity');
    const order = await page.$$eval('[role="tab"]', (tabs) => tabs.map((t) => t.id.slice(4)));
    expect(order.length).toBe(VIEWS.length);
    const chosen = () => page.$eval('[role="tab"][aria-selected="true"]', (t) => t.id.slice(4));
    await page.keyboard.press('ArrowRight');
    expect(await focused()).toBe(`tab-${order[order.indexOf('similarity') + 1]}`);
    expect(await chosen()).toBe(order[order.indexOf('similarity') + 1]);
    await page.keyboard.press('End');
    expect(await focused()).toBe(`tab-${order.at(-1)}`);
    await page.waitForFunction((v) => location.hash.includes(`view=${v}`), order.at(-1));
    await page.keyboard.press('Home');
    expect(await chosen()).toBe(order[0]);
    await page.keyboard.press('ArrowLeft'); // wraps round
    expect(await chosen()).toBe(order.at(-1));
    // Only the chosen tab is in the Tab order: the next Tab leaves the tab list.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).not.toBe('tab');
    await page.locator(`#view-${order.at(-1)}`).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Newcomer.NothingCutOffAt1024', async () => {
    const { page, context } = await openPage(session.browser, `${session.base}#view=encodings`, { width: 1024 });
    await page.locator('#view-encodings').waitFor();
    const outside = await page.$$eval('[role="tab"]', (tabs) =>
      tabs.filter((t) => t.getBoundingClientRect().right > window.innerWidth).map((t) => t.id),
    );
    expect(outside).toEqual([]);
    await context.close();
  });
});
