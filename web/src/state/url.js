// The URL hash is the state: parse(hash) → { state, problems } and serialise(state) → hash,
// and syncHash keeps the page's location.hash and its store in step.
// Only values that differ from the defaults are written, so permalinks stay short. Parsing
// keeps every valid parameter and reports the others; it never throws and never returns a
// value that its type did not check.
import { RULES, firstBroken } from './combinations.js';
import { SCHEMA, currentKey, defaults, pick, viewOfPrefix } from './registry.js';
import { preview } from './types.js';

export { preview };

export const MAX_HASH = 8192;

/** The view of the empty link: what PosLab is and where to start (views/start.js). */
export const LANDING = 'start';

const same = (a, b) => (Array.isArray(a) ? Array.isArray(b) && a.join(',') === b.join(',') : a === b);

/**
 * @param {string} hash location.hash, with or without the leading '#'
 * @returns {{ state: Record<string, any>, problems: string[] }}
 */
export function parseHash(hash) {
  const state = defaults();
  const problems = [];
  let body = typeof hash === 'string' ? hash : '';
  if (body.startsWith('#')) body = body.slice(1);
  if (body === '') return { state, problems };
  if (body.length > MAX_HASH) {
    return { state, problems: [`the link is too long (${body.length} characters); using the defaults`] };
  }
  let params;
  try {
    params = new URLSearchParams(body);
  } catch {
    return { state, problems: ['the link could not be read; using the defaults'] };
  }
  const seen = new Set();
  for (const [given, raw] of params) {
    const key = currentKey(given); // a renamed view's older prefix reads as today's
    if (!Object.hasOwn(SCHEMA, key)) {
      problems.push(`unknown setting “${preview(given)}” ignored`);
      continue;
    }
    if (seen.has(key)) {
      problems.push(`“${preview(key)}” given twice; the first one is used`);
      continue;
    }
    seen.add(key);
    const parsed = SCHEMA[key].parse(raw);
    if (parsed.ok) state[key] = parsed.value;
    else problems.push(`${key}=“${preview(raw)}” ${parsed.reason}; using ${SCHEMA[key].format(SCHEMA[key].def)}`);
  }
  return { state, problems };
}

const shown = (key, value) => `${key}=“${preview(SCHEMA[key].format(value))}”`;

/**
 * A state read from a link, made drawable: per view, a broken rule (state/combinations.js)
 * with a fit is fitted (the fit must satisfy every rule), any other leaves the view's settings
 * at their defaults.
 * @returns {{ state: Record<string, any>, problems: string[] }}
 */
export function fitCombinations(state) {
  const out = { ...state };
  const problems = [];
  const fresh = defaults();
  for (const prefix of Object.keys(RULES)) {
    const p = pick(out, prefix);
    const rule = firstBroken(prefix, p);
    if (!rule) continue;
    const key = typeof rule.key === 'function' ? rule.key(p) : rule.key;
    const patch = rule.fit?.(p);
    const fitted = patch && { ...p, ...patch };
    if (
      fitted &&
      !firstBroken(prefix, fitted) &&
      Object.entries(patch).every(([k, v]) => SCHEMA[`${prefix}.${k}`].check(v).ok)
    ) {
      const changes = Object.entries(patch).map(([k, v]) => {
        out[`${prefix}.${k}`] = v;
        return `${prefix}.${k} clamped to ${v}`;
      });
      problems.push(`${shown(key, p[key.slice(prefix.length + 1)])}: ${rule.message(p)}; ${changes.join(', ')}`);
      continue;
    }
    for (const k of Object.keys(out)) if (k.startsWith(`${prefix}.`)) out[k] = fresh[k];
    problems.push(
      `${shown(key, p[key.slice(prefix.length + 1)])}: ${rule.message(p)}; the ${viewOfPrefix(prefix).name} view uses its defaults`,
    );
  }
  return { state: out, problems };
}

/**
 * A link as the page and the embeds read it: each value checked (parseHash), then settings
 * refused together fitted or reset per view (fitCombinations), with every problem reported.
 * @returns {{ state: Record<string, any>, problems: string[] }}
 */
export function readLink(hash) {
  const parsed = parseHash(hash);
  const fitted = fitCombinations(parsed.state);
  return { state: fitted.state, problems: [...parsed.problems, ...fitted.problems] };
}

/** The hash (without '#') for a state; keys not in the schema are dropped. */
export function serialiseHash(state) {
  const params = new URLSearchParams();
  for (const [key, type] of Object.entries(SCHEMA)) {
    if (!Object.hasOwn(state, key)) continue;
    const value = state[key];
    if (same(value, type.def) || !type.check(value).ok) continue;
    params.set(key, type.format(value));
  }
  return params.toString();
}

/**
 * The address bar's hash for a state: Encodings at its defaults serialises to nothing, which
 * would reopen the landing, so it names its view.
 */
export function linkHash(state) {
  return serialiseHash(state) || `view=${SCHEMA.view.format(SCHEMA.view.def)}`;
}

/** The permalink hash of a preset: the defaults with the preset's values on top. */
export function presetHash(preset) {
  return linkHash({ ...defaults(), ...preset });
}

/** How long the settings must stay still before the address bar is rewritten. */
export const WRITE_DELAY_MS = 150;

/**
 * Keeps location.hash and the store in step. Control changes replace the history entry (a
 * slider drag must not fill the back button); a pasted or clicked link is read back in.
 * @param {ReturnType<import('./store.js').createStore>} store
 * @param {(problems: string[]) => void} report shows what part of a link was ignored
 */
export function syncHash(store, report) {
  let writing = false;

  const read = () => {
    const { state, problems } = readLink(window.location.hash);
    report(problems);
    // The page's own address, with no link in it, opens the landing; a link that names no view
    // opens Encodings, as links written before the landing existed did.
    const bare = window.location.hash.replace(/^#/, '') === '';
    store.set(bare ? { ...state, view: LANDING } : state, { source: 'hash' });
  };

  // The address bar is written once a burst of changes has settled (WRITE_DELAY_MS without
  // another): replaceState costs milliseconds a slider step should spend on its redraw, and
  // browsers cap a page's history updates (Chromium ignores those past 200 in 10 s, Safari
  // throws past 100), which a drag reaches in seconds. A pending write is flushed when the
  // page is hidden or left.
  let pending = null;
  let timer = 0;
  const write = () => {
    clearTimeout(timer);
    if (pending === null) return;
    const hash = linkHash(pending);
    pending = null;
    const url = `${window.location.pathname}${window.location.search}#${hash}`;
    writing = true;
    window.history.replaceState(null, '', url);
    writing = false;
  };
  store.subscribe((state, _changed, meta) => {
    if (meta.source === 'hash') {
      // A link read in supersedes settings not yet written: writing them later would undo it.
      pending = null;
      clearTimeout(timer);
      return;
    }
    pending = state;
    clearTimeout(timer);
    timer = setTimeout(write, WRITE_DELAY_MS);
  });
  window.addEventListener('pagehide', write);
  document.addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && write());

  window.addEventListener('hashchange', () => {
    if (!writing) read();
  });
  read();
}
