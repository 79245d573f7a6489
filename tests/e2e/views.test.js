// Every view in a real browser: loads without errors or failed requests, draws non-blank
// canvases, redraws when a control changes, reloads from its permalink to the same picture,
// and exports files. Screenshots land in test-output/e2e/.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  browserForFile,
  canvasColours,
  canvasHash,
  drawCount,
  drawn,
  openPage,
  outDir,
  PHONE,
  sidewaysScroll,
  unlabelledControls,
  urlWith,
} from './helpers/browser.js';

const select = (id, value) => (page) => page.selectOption(id, value);
const type = (id, value) => async (page) => {
  await page.fill(id, value);
  await page.press(id, 'Tab'); // number inputs commit on change
};

const CASES = [
  {
    view: 'encodings',
    prefix: 'enc',
    change: select('#c-enc-method', 'rope'),
    control: '#c-enc-method',
    value: 'rope',
    hash: 'enc.method=rope',
  },
  {
    view: 'similarity',
    prefix: 'sim',
    change: type('#c-sim-L', '120'),
    control: '#c-sim-L',
    value: '120',
    hash: 'sim.L=120',
  },
  {
    view: 'extrapolation',
    prefix: 'ext',
    change: select('#c-ext-scaling', 'llama3'),
    control: '#c-ext-scaling',
    value: 'llama3',
    hash: 'ext.scaling=llama3',
    figure: 'inv_freq',
  },
  { view: 'offset', prefix: 'off', change: type('#c-off-k', '7'), control: '#c-off-k', value: '7', hash: 'off.k=7' },
  {
    view: 'attention',
    prefix: 'att',
    change: select('#c-att-bias', 'alibi'),
    control: '#c-att-bias',
    value: 'alibi',
    hash: 'att.bias=alibi',
    figure: 'Position bias',
  },
];

// The README's two pictures (docs/images/, 1280 × 900), rewritten by every run so they stay current.
const README_PICTURES = ['encodings', 'attention'];
const pictures = path.resolve(outDir, '../../docs/images');

const session = browserForFile();

describe.each(CASES)('view $view', ({ view, prefix, change, control, value, hash, figure }) => {
  const section = `#view-${view}`;
  // The plot the control drives (the first one unless the case names another).
  const mainCanvas = figure ? `${section} .fig:has-text("${figure}") canvas` : `${section} .fig canvas`;

  it('E2E.LoadsDrawsChangesReloadsExports', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=${view}`);
    await drawn(page, prefix);
    expect(await page.isVisible(section)).toBe(true);
    const colours = await canvasColours(page, section);
    expect(colours.length).toBeGreaterThan(0);
    for (const n of colours) expect(n, 'a canvas is blank').toBeGreaterThan(2);
    await page.screenshot({ path: path.join(outDir, `${view}.png`), fullPage: true });
    if (README_PICTURES.includes(view)) {
      fs.mkdirSync(pictures, { recursive: true });
      await page.screenshot({ path: path.join(pictures, `${view}.png`) });
    }

    // Changing a control redraws the plot and lands in the URL.
    const before = await canvasHash(page, mainCanvas);
    const count = await drawCount(page, prefix);
    await change(page);
    await drawn(page, prefix, count + 1);
    expect(await canvasHash(page, mainCanvas)).not.toBe(before);
    const url = await urlWith(page, hash);
    const after = await canvasHash(page, mainCanvas);
    await page.screenshot({ path: path.join(outDir, `${view}-changed.png`), fullPage: true });

    // The permalink reloads to the same state and the same picture.
    const again = await openPage(session.browser, url);
    await drawn(again.page, prefix);
    expect(await again.page.inputValue(control)).toBe(value);
    expect(await canvasHash(again.page, mainCanvas)).toBe(after);
    expect(again.problems).toEqual([]);
    await again.context.close();

    // Exports: CSV, PNG and .npy of the first plot.
    for (const label of ['CSV', 'PNG', '.npy']) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.click(`${section} .fig >> nth=0 >> button:text-is("${label}")`),
      ]);
      const file = path.join(outDir, `${view}-${download.suggestedFilename()}`);
      await download.saveAs(file);
      const bytes = fs.readFileSync(file);
      expect(bytes.length, `${label} export is empty`).toBeGreaterThan(10);
      if (label === 'PNG') expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      if (label === '.npy') expect(bytes.subarray(1, 6).toString()).toBe('NUMPY');
      if (label === 'CSV') expect(bytes.toString().split('\n').length).toBeGreaterThan(2);
    }
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('whole page', () => {
  it('E2E.GalleryLinksOpenTheirPresets', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=gallery`);
    await page.waitForSelector('#view-gallery .card');
    await page.screenshot({ path: path.join(outDir, 'gallery-links.png'), fullPage: true });
    expect(await page.locator('#view-gallery .card').count()).toBe(5);
    await page.click('#view-gallery a:text-is("Table and vectors")');
    await drawn(page, 'enc');
    expect(await page.inputValue('#c-enc-L')).toBe('300');
    expect(await page.inputValue('#c-enc-cmap')).toBe('Blues');
    for (const n of await canvasColours(page, '#view-encodings')) expect(n).toBeGreaterThan(2);
    await page.screenshot({ path: path.join(outDir, 'seed001-encodings.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('E2E.XposDrawnInEncodingsWithItsScaleBaseAndAsAttentionsRotation', async () => {
    const { page, context, problems } = await openPage(
      session.browser,
      `${session.base}#view=encodings&enc.method=xpos&enc.L=64&enc.D=32`,
    );
    await drawn(page, 'enc');
    const table = '#view-encodings .fig canvas';
    for (const n of await canvasColours(page, '#view-encodings')) expect(n, 'a canvas is blank').toBeGreaterThan(2);
    expect(await page.textContent('#view-encodings .fig .fig-title >> nth=0')).toContain(
      'xPos (gptj; queries, scale base 512)',
    );
    expect(await page.isVisible('#c-enc-base')).toBe(true);
    expect(await page.isVisible('#c-enc-style')).toBe(false); // xPos pairs gptj only
    // A smaller scale base is a stronger decay: another picture, and in the link.
    const before = await canvasHash(page, table);
    const count = await drawCount(page, 'enc');
    await type('#c-enc-scalebase', '8')(page);
    await drawn(page, 'enc', count + 1);
    expect(await canvasHash(page, table)).not.toBe(before);
    await urlWith(page, 'enc.scalebase=8');
    // One too small for L (3.5^(⌈L/2⌉/s) past float32) is refused beside its control.
    await page.fill('#c-enc-L', '8192');
    await page.press('#c-enc-L', 'Tab');
    await page.waitForFunction(() => document.getElementById('c-enc-scalebase-error').textContent.length > 0);
    expect(await page.textContent('#c-enc-scalebase-error')).toMatch(/scale base must be at least 59/);

    // The Attention view's rotation of q and k: xPos changes the raw scores.
    await page.click('#tab-attention');
    await drawn(page, 'att');
    const scores = '#view-attention .fig:has-text("Raw scores") canvas';
    const plain = await canvasHash(page, scores);
    const n = await drawCount(page, 'att');
    await page.selectOption('#c-att-rope', 'xpos');
    await drawn(page, 'att', n + 1);
    expect(await canvasHash(page, scores)).not.toBe(plain);
    await urlWith(page, 'att.rope=xpos');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('E2E.MaskCellToggleMakesACustomMask', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=attention`);
    await drawn(page, 'att');
    const count = await drawCount(page, 'att');
    const mask = page.locator('#view-attention .fig:has-text("Mask (alone)") canvas');
    await mask.focus();
    await page.keyboard.press('ArrowRight'); // cell (0, 1): hidden by causal → becomes visible
    await page.keyboard.press('Enter');
    await drawn(page, 'att', count + 1);
    const hash = decodeURIComponent(new URL(await urlWith(page, 'att.mask=custom')).hash);
    expect(hash).toMatch(/att\.custom=\d+\./);
    expect(await page.inputValue('#c-att-mask')).toBe('custom');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('E2E.HostileLinkFallsBackWithAMessageAndInjectsNothing', async () => {
    const payload = '<img src=x onerror="window.__pwned=1">';
    const hash = `#view=${encodeURIComponent(payload)}&enc.L=abc&${encodeURIComponent('<b>k</b>')}=1&att.text=${encodeURIComponent(payload)}`;
    const { page, context, problems } = await openPage(session.browser, `${session.base}${hash}`);
    await drawn(page, 'enc');
    expect(await page.isVisible('#messages')).toBe(true);
    const text = await page.textContent('#messages');
    expect(text).toContain('enc.L');
    expect(text).toContain('<img'); // shown as text…
    expect(await page.locator('img').count()).toBe(0); // …never as markup
    expect(await page.locator('#messages b').count()).toBe(0);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    expect(await page.inputValue('#c-enc-L')).toBe('50');
    await page.click('#tab-attention');
    await drawn(page, 'att');
    expect(await page.inputValue('#c-att-text')).toBe(payload);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('E2E.ErrorShowsBesideTheControlAndKeepsThePlot', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#enc.D=64`);
    await drawn(page, 'enc');
    const before = await canvasHash(page, '#view-encodings .fig canvas');
    await page.fill('#c-enc-D', '63');
    await page.press('#c-enc-D', 'Tab');
    await page.waitForFunction(() => document.getElementById('c-enc-D-error').textContent.length > 0);
    expect(await page.textContent('#c-enc-D-error')).toMatch(/even/);
    expect(await canvasHash(page, '#view-encodings .fig canvas')).toBe(before);
    await page.fill('#c-enc-L', '99999');
    await page.press('#c-enc-L', 'Tab');
    expect(await page.textContent('#c-enc-L-error')).toMatch(/between 1 and 8192/);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('E2E.PhoneWidthDarkThemeAndLabels', async () => {
    const { page, context, problems } = await openPage(
      session.browser,
      `${session.base}#view=attention&theme=dark`,
      PHONE,
    );
    await drawn(page, 'att');
    expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
    expect(await sidewaysScroll(page), 'page scrolls sideways on a phone').toBeLessThanOrEqual(1);
    await page.screenshot({ path: path.join(outDir, 'attention-phone-dark.png'), fullPage: true });
    // Every form control of the view has a label.
    expect(await unlabelledControls(page, '#view-attention')).toEqual([]);
    // The theme button cycles auto → light → dark; the hash follows.
    await page.click('#theme');
    await page.waitForFunction(() => !decodeURIComponent(window.location.hash).includes('theme=dark'), null, {
      timeout: 10_000,
    });
    expect(problems).toEqual([]);
    await context.close();
  });
});
