// The two embed snippets parse back to the state they were made from: the iframe's src
// through the embed page's parser, the element's attributes through the element's parser.
import { describe, expect, it } from 'vitest';
import { parseEmbedHash, parseFigureAttributes } from '../../web/src/embed/params.js';
import { PLOTS } from '../../web/src/embed/plots.js';
import { embedSnippets, escapeAttr, plotState } from '../../web/src/embed/snippets.js';
import { defaults } from '../../web/src/state/registry.js';

const BASE = 'https://example.org/poslab/';
const unescape = (s) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Attributes of the first <tag ...> in html (the snippets' own simple shape). */
function attributesOf(html, tag) {
  const open = new RegExp(`<${tag}((?:\\s+[\\w.-]+(?:="[^"]*")?)*)\\s*>`).exec(html);
  return [...open[1].matchAll(/([\w.-]+)(?:="([^"]*)")?/g)].map((m) => ({ name: m[1], value: unescape(m[2] ?? '') }));
}

const CASES = [
  {
    plot: 'encodings.table',
    patch: { 'enc.method': 'rope', 'enc.L': 128, 'enc.D': 64, 'enc.cmap': 'RdBu', 'enc.pos': [1, 5] },
  },
  { plot: 'similarity.matrix', patch: { 'sim.L': 200, 'sim.metric': 'dot', theme: 'dark' }, controls: false },
  { plot: 'offset.matrix', patch: { 'off.k': -12, 'off.p': 20, 'off.base': 500.5 }, hidden: ['off.base'] }, // p + k ≥ 0: drawable
  { plot: 'attention', patch: { 'att.text': 'a "quoted" <b>bold</b> & more', 'att.bias': 'alibi' } },
  { plot: 'extrapolation', patch: {} },
];

describe('embed snippets', () => {
  it.each(CASES)('Snippet.IframeRoundTrips ($plot)', ({ plot, patch, controls = true, hidden = [] }) => {
    const state = { ...defaults(), ...patch };
    const { iframe, src } = embedSnippets({ state, plot, controls, hidden }, BASE);
    const attrs = attributesOf(iframe, 'iframe');
    const srcAttr = attrs.find((a) => a.name === 'src').value;
    expect(srcAttr).toBe(src);
    const url = new URL(srcAttr);
    expect(url.href.startsWith(`${BASE}embed.html#`)).toBe(true);
    const back = parseEmbedHash(url.hash);
    expect(back.problems).toEqual([]);
    expect(back.plot).toBe(plot);
    expect(back.controls).toBe(controls);
    expect(back.hidden).toEqual(hidden);
    expect(plotState(back.state, plot)).toEqual(plotState(state, plot));
    expect(iframe).toContain(`${BASE}embed/resize.js`);
  });

  it.each(CASES)('Snippet.ElementRoundTrips ($plot)', ({ plot, patch, controls = true, hidden = [] }) => {
    const state = { ...defaults(), ...patch };
    const { element } = embedSnippets({ state, plot, controls, hidden }, BASE);
    expect(element).toContain(`src="${BASE}poslab-figure.js"`);
    const back = parseFigureAttributes(attributesOf(element, 'poslab-figure'));
    expect(back.problems).toEqual([]);
    expect(back.plot).toBe(plot);
    expect(back.controls).toBe(controls);
    expect(back.hidden).toEqual(hidden);
    expect(plotState(back.state, plot)).toEqual(plotState(state, plot));
  });

  it('Snippet.TextCannotBreakOutOfItsAttribute', () => {
    const state = { ...defaults(), 'att.text': '"><script>alert(1)</script>' };
    const { element } = embedSnippets({ state, plot: 'attention' }, BASE);
    expect(element).not.toContain('<script>alert');
    expect(escapeAttr('"<>&')).toBe('&quot;&lt;&gt;&amp;');
  });

  it('Snippet.EveryPlotHasAHeightAndTitle', () => {
    for (const [name, p] of Object.entries(PLOTS)) {
      const { iframe } = embedSnippets({ state: defaults(), plot: name }, BASE);
      expect(iframe).toContain(`height="${p.height}"`);
    }
  });
});
