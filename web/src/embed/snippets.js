// The two embed snippets for a state: an <iframe> of embed.html (plus the parent-side resize
// script) and a <poslab-figure> element (plus its module script). Only the keys of the
// plot's own view (and the theme) go in, and only where they differ from the defaults, so
// the snippets stay short; both parse back to the same state (tests/web/embed-snippets).
import { SCHEMA } from '../state/registry.js';
import { serialiseHash } from '../state/url.js';
import { PLOTS } from './plots.js';
import { attributeKeys } from './params.js';

/** Text → a double-quoted attribute value that cannot end early or open a tag. */
export function escapeAttr(text) {
  return String(text).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The part of `state` a plot depends on: its view's keys and the theme. */
export function plotState(state, plot) {
  const { prefix } = PLOTS[plot];
  const out = {};
  for (const key of Object.keys(SCHEMA)) {
    if (key === 'theme' || key.startsWith(`${prefix}.`)) out[key] = state[key];
  }
  return out;
}

/** The embed page's hash (without '#') for these settings. */
export function embedHash({ state, plot, controls = true, hidden = [] }) {
  const params = new URLSearchParams(serialiseHash(plotState(state, plot)));
  params.set('plot', plot);
  if (!controls) params.set('controls', '0');
  for (const key of hidden) params.set(`${key}_hide`, '1');
  return params.toString();
}

/** [attribute name, value] pairs of <poslab-figure> for these settings. */
export function figureAttributes({ state, plot, controls = true, hidden = [] }) {
  // Later entries win: the aliases (len, dim) come last in attributeKeys and read better.
  const byKey = new Map([...attributeKeys(PLOTS[plot].prefix)].map(([n, k]) => [k, n]));
  const attrs = [['plot', plot]];
  for (const [key, value] of new URLSearchParams(serialiseHash(plotState(state, plot)))) {
    attrs.push([byKey.get(key), value]);
  }
  if (!controls) attrs.push(['controls', '0']);
  for (const key of hidden) attrs.push([`${byKey.get(key)}_hide`, '1']);
  return attrs;
}

/**
 * @param {{ state: Record<string, any>, plot: string, controls?: boolean, hidden?: string[] }} settings
 * @param {string | URL} appBase the folder of the built app (where embed.html and index.html are)
 * @returns {{ iframe: string, element: string, src: string }}
 */
export function embedSnippets(settings, appBase) {
  const src = new URL(`embed.html#${embedHash(settings)}`, appBase).href;
  const resize = new URL('embed/resize.js', appBase).href;
  const script = new URL('poslab-figure.js', appBase).href;
  const { height, title } = PLOTS[settings.plot];
  const iframe =
    `<iframe src="${escapeAttr(src)}" title="${escapeAttr(`PosLab: ${title}`)}" width="100%" height="${height}" loading="lazy" data-poslab-embed></iframe>\n` +
    `<script src="${escapeAttr(resize)}" defer></script>`;
  const attrs = figureAttributes(settings)
    .map(([n, v]) => ` ${n}="${escapeAttr(v)}"`)
    .join('');
  const element = `<script type="module" src="${escapeAttr(script)}"></script>\n<poslab-figure${attrs}></poslab-figure>`;
  return { iframe, element, src };
}
