// Plain words on every view, in Chromium: each view opened at its defaults shows no internal
// method id where the methods' table has a label for it ("alibi > none > learned = rope" must
// read "ALiBi > NoPE > learned absolute = RoPE"), no raw backticks, and no command line or
// docs/ path outside a closed "Run it natively". What is read: the view's visible text nodes
// (not inside a closed <details>, a select or a text box; <code> is read for commands only,
// where ids are the CLI's words) and every string its canvases draw (legends, axis labels:
// fillText is recorded before the page loads).
import { describe, expect, it } from 'vitest';
import { METHOD_INFO } from '../../web/src/content/methods.js';
import { VIEWS } from '../../web/src/state/registry.js';
import { browserForFile, drawn, openPage } from './helpers/browser.js';

const session = browserForFile();

// The ids the table labels otherwise. 'learned' and 'none' are also English ("learned weights",
// "mask: none"): they count only where a method list stands (a ranking's "a > b = c", or a
// legend entry that is the bare id); the others count anywhere as a bare token, case-sensitive,
// not inside a longer name (rope_scaling, rope-config, t5-small).
const RENAMED = Object.entries(METHOD_INFO)
  .filter(([id, info]) => info.label !== id)
  .map(([id]) => id);
const ENGLISH = new Set(['learned', 'none']);
// 'fox' is also a word of the Attention view's sample text ("the quick brown fox …"), each token
// an axis label of its own: it counts only inside a ranking ("fox > rope").
const TEXT_WORDS = new Set(['fox']);
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
const BARE = RENAMED.filter((id) => !ENGLISH.has(id) && !TEXT_WORDS.has(id)).map((id) => [
  id,
  new RegExp(`(?<![\\w./#=-])${escape(id)}(?![\\w/-])`),
]);
const RANKED = [
  ...[...ENGLISH].map((id) => [id, new RegExp(`(^|[>=] )${id}( [>=]|$)`, 'm')]),
  ...[...TEXT_WORDS].map((id) => [id, new RegExp(`[>=] ${id}\\b|\\b${id} [>=]`)]),
];

/** The visible text of a view and what its canvases drew, once it has shown its default figures. */
async function textOf(page, name) {
  return page.evaluate((view) => {
    const root = document.getElementById(`view-${view}`);
    const lines = [];
    const code = []; // commands and config keys may use ids; they still must not be in plain sight
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const parent = n.parentElement;
      if (!n.textContent.trim() || parent.closest('select, textarea, script, style')) continue;
      if (!parent.checkVisibility() || parent.closest('details:not([open]) > :not(summary)')) continue;
      (parent.closest('code') ? code : lines).push(n.textContent);
    }
    return { dom: lines.join('\n'), code: code.join('\n'), canvas: [...(globalThis.__drawnText ?? [])] };
  }, name);
}

/** Every rule a text breaks: 'rule: the offending excerpt'. */
export function plainWordFaults(dom, canvas, code = '') {
  const faults = [];
  const excerpt = (text, i) => text.slice(Math.max(0, i - 30), i + 30).replace(/\s+/g, ' ');
  for (const text of [dom, ...canvas]) {
    for (const [id, re] of [...BARE, ...RANKED]) {
      const m = re.exec(text);
      if (m) faults.push(`method id “${id}” (label “${METHOD_INFO[id].label}”): …${excerpt(text, m.index)}…`);
    }
  }
  const raw = /`|\bposlab (train|lm|lens|rope-config|bench)\b|\bdocs\/\w+\.md\b/.exec(`${dom}\n${code}`);
  if (raw) faults.push(`backtick, command or docs path: …${excerpt(`${dom}\n${code}`, raw.index)}…`);
  return faults;
}

const LABS = ['length-generalisation', 'text-lab']; // open on their bundled runs, no job

describe('plain words', () => {
  it('PlainWords.TheCheckCatchesWhatIssue48Found', () => {
    expect(plainWordFaults('Ranking: alibi > none > learned = rope.', [])).toHaveLength(4);
    expect(plainWordFaults('', ['none', 'xpos', 'rope_theta'])).toHaveLength(2); // a legend entry that is an id
    expect(plainWordFaults('Natively: `poslab train --task copy`', [])).toHaveLength(1);
    expect(plainWordFaults('Natively:', [], 'poslab train --position rope')).toHaveLength(1); // a command in sight
    expect(plainWordFaults('ALiBi > NoPE > learned absolute = RoPE; rope_scaling, mask: none, t5-small', [])).toEqual(
      [],
    );
  });

  it.each(VIEWS.map((v) => v.name))('PlainWords.%s: labels, not method ids, in what it shows', async (name) => {
    const { page, context, problems } = await openPage(session.browser, 'about:blank');
    await page.addInitScript(() => {
      const seen = new Set();
      globalThis.__drawnText = seen;
      const fill = CanvasRenderingContext2D.prototype.fillText;
      CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
        seen.add(String(text));
        return fill.call(this, text, ...rest);
      };
    });
    await page.goto(`${session.base}#view=${name}`);
    await page.locator(`#view-${name} .view-intro h2`).waitFor();
    const { prefix } = VIEWS.find((v) => v.name === name);
    if (LABS.includes(name)) await page.locator(`#view-${name} [data-source="example"]`).waitFor({ timeout: 60_000 });
    else if (prefix) await drawn(page, prefix, 1, { timeout: 90_000 });
    else if (name !== 'start') await page.locator(`#view-${name} canvas:visible`).first().waitFor({ timeout: 60_000 });
    await page.waitForTimeout(300); // the frame after the last draw
    const { dom, code, canvas } = await textOf(page, name);
    expect(dom.length, 'the view shows text').toBeGreaterThan(50);
    expect(plainWordFaults(dom, canvas, code)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
