// The Train short, test long view in Chromium on the real training module, kept to seconds:
// two byte-level models of a few dozen steps on a short context. Opening shows the bundled
// native run, labelled, with its curves by context, RoPE's scalings and what it says of the
// papers' claims; Train on the user's own file replaces them with this setting's runs.
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { browserForFile, openPage, outDir } from './helpers/browser.js';

const session = browserForFile();
const section = '#view-text-lab';
const settled = (page) =>
  page.waitForFunction(
    (s) => /cached|restored/.test(document.querySelector(s)?.textContent ?? ''),
    `${section} .tl-progress`,
  );
const tableRows = (page) =>
  page.$$eval(`${section} .tl-table tr`, (rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));

describe('view text-lab', () => {
  it('E2E.TextLabOpensOnTheNativeRunAndTrainsOnTheUsersText', async () => {
    const url = `${session.base}#view=text-lab&tl.methods=alibi,rope&tl.N=16&tl.M=64&tl.steps=30&tl.seed=3`;
    const { page, context, problems } = await openPage(session.browser, url);
    await settled(page);
    expect(await page.textContent(`${section} .tl-source`)).toMatch(/^Not your runs yet: .*native run on the sample/);
    // Its command and commit wait under "Run it natively", closed: no backticks in the banner.
    expect(await page.textContent(`${section} details.native`)).toMatch(/bench\/lab\/text\.py.*commit [0-9a-f]{7}/);
    expect(await page.locator(`${section} details.native`).evaluate((d) => d.open)).toBe(false);
    for (const name of ['context', 'scaling', 'loss']) {
      expect(await page.locator(`${section} [data-figure="${name}"]`).isVisible(), name).toBe(true);
    }
    const example = await tableRows(page);
    expect(example[0].slice(0, 2)).toEqual(['method', '64']);
    expect(example.length).toBeGreaterThan(6); // six methods or more, and the header
    await page.screenshot({ path: path.join(outDir, 'text-lab-example.png'), fullPage: true });
    const findings = await page.$$eval(`${section} .tl-finding`, (ps) => ps.map((p) => p.textContent));
    expect(findings[0]).toMatch(
      /^Press et al\. 2022, Figure 1: .*(Agrees|Does not agree): From context 64 to 1024: ALiBi/,
    );

    // The user's text: a file of repeated lines, long enough for a held-out part past M.
    let text = '';
    for (let i = 0; text.length < 4000; i++) text += `line ${i % 29}: the quick brown fox\n`;
    await page.setInputFiles(`${section} .tl-file input`, {
      name: 'mine.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(text),
    });
    await page.waitForFunction(
      (s) => /on mine\.txt/.test(document.querySelector(s)?.textContent ?? ''),
      `${section} .tl-progress`,
    );
    await page.click(`${section} .tl-train`);
    await page.waitForFunction(
      (s) => document.querySelector(s)?.textContent.startsWith('Done'),
      `${section} .tl-progress`,
      { timeout: 120_000 },
    );
    expect(await page.textContent(`${section} .tl-source`)).toBe('');
    const rows = await tableRows(page);
    expect(rows.map((r) => r[0])).toEqual(['method', 'ALiBi', 'RoPE']);
    expect(rows[0].slice(1, 4)).toEqual(['16', '32', '64']);
    for (const r of rows.slice(1)) for (const cell of r.slice(1, 4)) expect(Number(cell)).toBeGreaterThan(0);
    expect(await page.textContent(`${section} .tl-papers`)).toMatch(/RoPE at context 64, by scaling \(factor 4\)/);
    expect(problems).toEqual([]);
    await context.close();
  });
});
