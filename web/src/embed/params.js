// Reading an embed's settings: the embed page's hash (`#<playground state>&plot=…&controls=0
// &enc.cmap_hide=1`) and <poslab-figure>'s attributes (`plot="heatmap" method="rope" len="128"`).
// Both end in the playground's own URL parser, so every value meets the same allow-lists and
// ranges; nothing here throws, and whatever is refused comes back as a problem to show.
import { SCHEMA } from '../state/registry.js';
import { MAX_HASH, preview, readLink } from '../state/url.js';
import { DEFAULT_PLOT, PLOTS, resolvePlot } from './plots.js';

const HIDE = '_hide';
const ON = new Set(['1', 'true']);
const OFF = new Set(['0', 'false']);

// Attributes a page may put on any element; they say nothing about the figure.
const GLOBAL_ATTRS = new Set([
  'id',
  'class',
  'style',
  'title',
  'slot',
  'hidden',
  'lang',
  'dir',
  'tabindex',
  'part',
  'width',
  'height',
  'loading',
]);
// Short attribute names for the width and length of whichever view the plot belongs to.
const ALIASES = { len: 'L', dim: 'D' };
// Settings whose own name is one of GLOBAL_ATTRS take this name instead: `style` stays the
// element's CSS, and the RoPE style is still an attribute (and in the Embed snippet).
const RENAMED = { style: 'rope-style' };

/**
 * @typedef {{ state: Record<string, any>, plot: string, controls: boolean, hidden: string[],
 *   problems: string[] }} EmbedSettings
 */

/** @param {string} hash location.hash of the embed page (with or without '#') */
export function parseEmbedHash(hash) {
  let body = typeof hash === 'string' ? hash : '';
  if (body.startsWith('#')) body = body.slice(1);
  const problems = [];
  if (body.length > MAX_HASH) {
    problems.push(`the link is too long (${body.length} characters); using the defaults`);
    body = '';
  }
  let params;
  try {
    params = new URLSearchParams(body);
  } catch {
    params = new URLSearchParams();
    problems.push('the link could not be read; using the defaults');
  }
  const rest = new URLSearchParams();
  const embed = { plot: null, controls: null };
  const hidden = new Set();
  for (const [key, raw] of params) {
    if (key === 'plot' || key === 'controls') {
      if (embed[key] === null) embed[key] = raw;
      else problems.push(`“${key}” given twice; the first one is used`);
    } else if (key.endsWith(HIDE)) {
      const target = key.slice(0, -HIDE.length);
      if (Object.hasOwn(SCHEMA, target) && ON.has(raw)) hidden.add(target);
      else if (!(Object.hasOwn(SCHEMA, target) && OFF.has(raw)))
        problems.push(`“${preview(key)}=${preview(raw)}” is not a control to hide; ignored`);
    } else {
      rest.append(key, raw);
    }
  }
  const parsed = readLink(rest.toString());

  let plot = DEFAULT_PLOT;
  if (embed.plot !== null) {
    const resolved = resolvePlot(embed.plot);
    if (resolved) plot = resolved;
    else
      problems.push(
        `plot “${preview(embed.plot)}” is not one of ${Object.keys(PLOTS).join(', ')}; showing ${DEFAULT_PLOT}`,
      );
  }
  let controls = true;
  if (embed.controls !== null) {
    if (OFF.has(embed.controls)) controls = false;
    else if (!ON.has(embed.controls))
      problems.push(`controls=“${preview(embed.controls)}” must be 0 or 1; showing them`);
  }
  const state = { ...parsed.state, view: PLOTS[plot].view };
  // The embed's own settings first: they decide what is shown at all.
  return { state, plot, controls, hidden: [...hidden].sort(), problems: [...problems, ...parsed.problems] };
}

/** Lower-case attribute name → schema key, for the keys of one view (prefix) and the theme. */
export function attributeKeys(prefix) {
  const map = new Map([['theme', 'theme']]);
  for (const key of Object.keys(SCHEMA)) {
    if (!key.startsWith(`${prefix}.`)) continue;
    const short = key.slice(prefix.length + 1).toLowerCase();
    map.set(GLOBAL_ATTRS.has(short) ? RENAMED[short] : short, key);
  }
  for (const [alias, short] of Object.entries(ALIASES)) {
    if (map.has(short.toLowerCase())) map.set(alias, `${prefix}.${short}`);
  }
  return map;
}

/** Every attribute name <poslab-figure> reacts to (for observedAttributes). */
export function observedAttributeNames() {
  const names = new Set(['plot', 'controls']);
  for (const p of new Set(Object.values(PLOTS).map((x) => x.prefix))) {
    for (const name of attributeKeys(p).keys()) names.add(name).add(`${name}${HIDE}`);
  }
  return [...names];
}

/**
 * @param {Iterable<{ name: string, value: string }> | Record<string, string>} attrs an element's
 *   `attributes` or a plain object
 * @returns {EmbedSettings}
 */
export function parseFigureAttributes(attrs) {
  const list = Symbol.iterator in Object(attrs) ? [...attrs].map((a) => [a.name, a.value]) : Object.entries(attrs);
  const lower = list.map(([n, v]) => [String(n).toLowerCase(), String(v)]);
  const plotAttr = lower.find(([n]) => n === 'plot');
  const plotName = resolvePlot(plotAttr?.[1]) ?? DEFAULT_PLOT;
  const keys = attributeKeys(PLOTS[plotName].prefix);
  const params = new URLSearchParams();
  const problems = [];
  for (const [name, value] of lower) {
    if (name === 'plot' || name === 'controls') params.append(name, value);
    else if (GLOBAL_ATTRS.has(name) || name.startsWith('data-') || name.startsWith('aria-')) continue;
    else if (name.endsWith(HIDE) && keys.has(name.slice(0, -HIDE.length)))
      params.append(`${keys.get(name.slice(0, -HIDE.length))}${HIDE}`, value);
    else if (keys.has(name)) params.append(keys.get(name), value);
    else problems.push(`attribute “${preview(name)}” is not a setting of ${plotName}; ignored`);
  }
  const settings = parseEmbedHash(params.toString());
  settings.problems.unshift(...problems);
  return settings;
}
