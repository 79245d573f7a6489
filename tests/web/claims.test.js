// The paper claims the lab tests (web/src/content/claims.js): every row is whole, every paper the
// claims issue names has one, every lab number is quoted from docs/lab.md rather than written
// anew, the lab views' Claims panel shows a view's rows, and docs/claims.md is what its generator
// writes from the rows now.
import fs from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { afterEach, describe, expect, it, vi } from 'vitest';
import generateClaims, { slug } from '../../scripts/generators/claims.mjs';
import { CLAIM_VIEWS, CLAIMS, VERDICTS } from '../../web/src/content/claims.js';
import { viewNamed } from '../../web/src/state/registry.js';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');

const TEXT_FIELDS = ['id', 'paper', 'title', 'short', 'claim', 'paperNumber', 'labNumber', 'seeds', 'why', 'docs'];
const PAPERS = [
  'Press et al. 2022',
  'Kazemnejad et al. 2023',
  'Ruoss et al. 2023',
  'Cho et al. 2024',
  'McLeish et al. 2024',
  'Zhou et al. 2024',
  'Barbero et al. 2025',
];

/** The anchors of a Markdown file's headings, as GitHub makes them (fenced code left out). */
function anchors(markdown) {
  const headings = markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm);
  return new Set([...headings].map(([, text]) => slug(text)));
}

describe('claims', () => {
  it('Claims.EveryRowHasEveryFieldAndAKnownVerdict', () => {
    expect(CLAIMS.length).toBeGreaterThan(0);
    for (const c of CLAIMS) {
      for (const f of TEXT_FIELDS) {
        expect(typeof c[f], `${c.id}.${f}`).toBe('string');
        expect(c[f].trim(), `${c.id}.${f}`).not.toBe('');
      }
      expect(c.id).toMatch(/^[a-z0-9-]+$/);
      expect(Object.keys(VERDICTS), c.id).toContain(c.verdict);
      expect(c.command.length, c.id).toBeGreaterThan(0);
      for (const line of c.command) expect(line.trim(), c.id).not.toBe('');
      expect(c.views.length, c.id).toBeGreaterThan(0);
    }
    expect(new Set(CLAIMS.map((c) => c.id)).size).toBe(CLAIMS.length);
  });

  it('Claims.EveryPaperTheIssueNamesHasARow', () => {
    const cited = new Set(CLAIMS.map((c) => c.paper));
    for (const paper of PAPERS) expect(cited, paper).toContain(paper);
  });

  it('Claims.EachRowsViewIsALabViewOfTheRegistry', () => {
    for (const [name, title] of Object.entries(CLAIM_VIEWS)) {
      expect(viewNamed(name)?.title, name).toBe(title);
      expect(
        CLAIMS.some((c) => c.views.includes(name)),
        `no claim for ${name}`,
      ).toBe(true);
    }
    for (const c of CLAIMS) for (const v of c.views) expect(Object.keys(CLAIM_VIEWS), c.id).toContain(v);
  });

  it('Claims.EachRowsDocsAnchorIsAHeadingOfLabMd', () => {
    const headings = anchors(read('docs/lab.md'));
    for (const c of CLAIMS) expect(headings, `${c.id}: lab.md#${c.docs}`).toContain(c.docs);
  });

  it('Claims.LabNumbersAreQuotedFromLabMd', () => {
    // Each mean ± sd a row gives (its number, and the why that argues from it) stands in lab.md
    // as written: a row quotes the measured tables, it does not round or recompute them.
    const lab = read('docs/lab.md');
    for (const c of CLAIMS) {
      const quoted = [...`${c.labNumber} ${c.why}`.matchAll(/\d+\.\d+ ± \d+\.\d+/g)].map(([m]) => m);
      for (const q of quoted) expect(lab.includes(q), `${c.id}: ${q} is not in docs/lab.md`).toBe(true);
    }
    // The rows without a measurement say so, and the measured ones give at least one number.
    for (const c of CLAIMS) {
      if (c.verdict === 'not yet measured') expect(c.labNumber, c.id).toBe('Not yet measured.');
      else expect(c.labNumber, c.id).toMatch(/\d\.\d\d/);
    }
  });

  it('Claims.DocIsTheGeneratorsOutput', async () => {
    const file = path.join(root, 'docs/claims.md');
    const options = { ...(await prettier.resolveConfig(file)), filepath: file };
    expect(read('docs/claims.md')).toBe(await prettier.format(generateClaims(), options));
    // The generator is one of `npm run generate`'s, so `--check` fails when the page is stale.
    expect(read('scripts/generate.mjs')).toMatch(
      /file: 'docs\/claims\.md',\s*generator: '\.\/generators\/claims\.mjs'/,
    );
  });
});

// Just enough of a document for ui/dom.js's el() and the panel: elements with children, text,
// attributes, dataset and listeners.
class FakeElement {
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    this.children = [];
    this.attributes = {};
    this.dataset = {};
    this.listeners = {};
    this.className = '';
    this.hidden = false;
    this.text = '';
  }
  set textContent(text) {
    this.children = [];
    this.text = String(text);
  }
  get textContent() {
    return this.text + this.children.map((c) => (typeof c === 'string' ? c : c.textContent)).join('');
  }
  append(...nodes) {
    this.children.push(...nodes);
  }
  setAttribute(name, value) {
    this.attributes[name] = String(value);
  }
  addEventListener(type, fn) {
    this.listeners[type] = fn;
  }
  /** Every element under this one (itself included) that `test` accepts, in document order. */
  all(test) {
    const out = test(this) ? [this] : [];
    for (const c of this.children) if (typeof c !== 'string') out.push(...c.all(test));
    return out;
  }
}
const byClass = (name) => (e) => e.className.split(' ').includes(name);

describe('claims panel', () => {
  afterEach(() => vi.unstubAllGlobals());

  async function panelOf(view) {
    vi.stubGlobal('document', { createElement: (tag) => new FakeElement(tag) });
    const { claimsOf, claimsPanel } = await import('../../web/src/views/claims-panel.js');
    return { panel: claimsPanel(view), rows: claimsOf(view) };
  }

  it.each(Object.keys(CLAIM_VIEWS))('ClaimsPanel.ShowsTheRowsOfItsView %s', async (view) => {
    const { panel, rows } = await panelOf(view);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((c) => c.views.includes(view))).toBe(true);
    expect(panel.tagName).toBe('DETAILS');
    expect(panel.hidden).toBe(false);
    expect(panel.dataset.view).toBe(view);
    expect(panel.all((e) => e.tagName === 'SUMMARY')[0].textContent).toBe(`Claims this view tests (${rows.length})`);
    const items = panel.all(byClass('claims-row'));
    expect(items.map((i) => i.dataset.claim)).toEqual(rows.map((c) => c.id));
    items.forEach((item, i) => {
      const c = rows[i];
      const text = item.textContent;
      for (const part of [c.paper, c.title, c.claim, c.paperNumber, c.labNumber, c.why]) expect(text).toContain(part);
      // The paper names the row's heading; the verdict is a badge in it, in words.
      const [heading] = item.all((e) => e.tagName === 'H3');
      expect(heading.textContent).toContain(c.paper);
      const [badge] = heading.all(byClass('claims-verdict'));
      expect(badge.textContent).toBe(VERDICTS[c.verdict].label);
      expect(badge.dataset.verdict).toBe(c.verdict);
      // The command, every line of it, in one <code> to copy.
      const codes = item.all((e) => e.tagName === 'CODE');
      expect(codes.map((e) => e.textContent)).toEqual([c.command.join('\n')]);
    });
  });

  it('ClaimsPanel.CopiesACommand', async () => {
    const { panel, rows } = await panelOf('length-generalisation');
    const writeText = vi.fn(async () => {});
    vi.stubGlobal('navigator', { clipboard: { writeText } });
    const [button] = panel.all(byClass('claims-copy'));
    expect(button.tagName).toBe('BUTTON');
    expect(button.attributes['aria-label']).toContain(rows[0].paper);
    await button.listeners.click();
    expect(writeText).toHaveBeenCalledWith(rows[0].command.join('\n'));
    expect(panel.all(byClass('claims-copied'))[0].textContent).toBe('copied');
  });

  it('ClaimsPanel.IsHiddenForAViewWithNoClaims', async () => {
    const { panel, rows } = await panelOf('encodings');
    expect(rows).toEqual([]);
    expect(panel.hidden).toBe(true);
    expect(panel.all(byClass('claims-row'))).toEqual([]);
  });
});
