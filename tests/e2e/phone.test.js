// Every view at phone size (390 × 844 and a narrow 360 × 780, touch, device pixel ratio 2): the
// view's title and its one-line lead come first, then its primary control (the registry's
// `primary`), a figure (a plot, or the gallery's first card) starts inside the first screen
// (1.5 screens after a primary control), nothing makes the page scroll sideways, the settings fold
// under the figures and the longer prose comes after them; a screenshot of each view lands in
// test-output/e2e/phone-<view>.png (390) and phone-360-<view>.png.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VIEWS } from '../../web/src/state/registry.js';
import { browserForFile, outDir, PHONE, sidewaysScroll } from './helpers/browser.js';

const session = browserForFile();

// What counts as the view's figure: its first plot frame, or the gallery's first card.
const FIGURE = { gallery: '.card .thumb', benchmarks: '.fig', start: '.start-routes' }; // the landing's figure: its routes
// A view's primary control (the registry's `primary`) comes before its figures, within the
// first 1.5 screens; a figure after it may then start as far down.
const PRIMARY = Object.fromEntries(VIEWS.filter((v) => v.primary).map((v) => [v.name, v.primary]));

const NARROW = { width: 360, height: 780 };
const CASES = [PHONE, NARROW].flatMap((size) => VIEWS.map((v) => [size.width, v.name, size]));

// One phone per size, going from view to view by the URL's hash as a reader's link does (the
// playground switches views in place): a fresh page per view spent most of this file's time
// loading the playground again. Opening each view on a fresh page is the newcomer test's part.
const phones = new Map();
async function phone(size) {
  if (!phones.has(size.width)) {
    const context = await session.browser.newContext({
      viewport: size,
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    phones.set(size.width, { context, page, problems });
  }
  return phones.get(size.width);
}
afterAll(() => Promise.all([...phones.values()].map((p) => p.context.close())));

describe('phone layout', () => {
  it.each(CASES)('Phone.%i.%s', async (width, name, size) => {
    const { page, problems } = await phone(size);
    problems.length = 0;
    await page.goto(`${session.base}#view=${name}`);
    await page.evaluate(() => window.scrollTo(0, 0)); // where a freshly opened view starts
    const section = `#view-${name}`;
    const figure = `${section} ${FIGURE[name] ?? '.fig'}`;
    const first = page.locator(`${figure} >> visible=true`).first();
    await first.waitFor({ timeout: 60_000 });
    await page.waitForTimeout(300); // let the view settle (fonts, first draw)
    const top = await first.evaluate((el) => el.getBoundingClientRect().top);
    if (PRIMARY[name]) {
      const primary = page.locator(`${section} :is(${PRIMARY[name]}) >> visible=true`).first();
      const primaryTop = await primary.evaluate((el) => el.getBoundingClientRect().top);
      expect(primaryTop, 'the primary control is within 1.5 screens').toBeLessThanOrEqual(1.5 * size.height);
      expect(primaryTop, 'the primary control comes before the figures').toBeLessThan(top);
    }
    const screens = PRIMARY[name] ? 1.5 : 1;
    expect(top, 'the first figure starts in the first screen').toBeLessThan(screens * size.height);
    const topOf = (selector) =>
      page
        .locator(selector)
        .first()
        .evaluate((el) => el.getBoundingClientRect().top);
    const lead = await topOf(`${section} .view-intro .lead`);
    expect(await topOf(`${section} .view-intro h2`), 'the title comes first').toBeLessThan(lead);
    expect(lead, 'the lead comes before the figure').toBeLessThan(top);
    const prose = page.locator(`${section} .view-intro > .note >> visible=true`);
    if (await prose.count()) expect(await topOf(`${section} .view-intro > .note >> visible=true`)).toBeGreaterThan(top);
    expect(await sidewaysScroll(page), 'the page scrolls sideways').toBeLessThanOrEqual(1);
    // The rule holds for what a view may show later too: a long command, a long word in a list
    // and a select with a long option, put beside the first figure, widen nothing.
    await first.evaluate((fig) => {
      const long = `--methods=${'learned,sinusoidal,rope,'.repeat(12)}`;
      const probe = document.createElement('div');
      probe.className = 'width-probe';
      probe.innerHTML = `<p>Run <code>${long}</code></p><ul><li>${'x'.repeat(120)}</li></ul><label>Sizes <select><option>${long}</option></select></label>`;
      fig.parentElement.insertBefore(probe, fig);
    });
    expect(await sidewaysScroll(page), 'long words and options widen the page').toBeLessThanOrEqual(1);
    await page.evaluate(() => document.querySelector('.width-probe').remove());
    const fold = page.locator(`${section} .controls-fold`);
    if (await fold.count()) {
      expect(await fold.evaluate((d) => d.open), 'settings start folded on a phone').toBe(false);
      const foldTop = await fold.evaluate((el) => el.getBoundingClientRect().top);
      const below = foldTop >= top;
      expect(below, 'the settings come after the figure').toBe(true);
    }
    const shot = width === PHONE.width ? `phone-${name}.png` : `phone-${width}-${name}.png`;
    await page.screenshot({ path: path.join(outDir, shot) });
    expect(problems).toEqual([]);
  });
});
