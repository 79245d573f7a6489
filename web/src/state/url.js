// The URL hash is the state: parse(hash) → { state, problems } and serialise(state) → hash.
// Only values that differ from the defaults are written, so permalinks stay short. Parsing
// keeps every valid parameter and reports the others; it never throws and never returns a
// value that its type did not check.
import { fitCombinations } from './combinations.js';
import { SCHEMA, defaults } from './schema.js';
import { preview } from './types.js';

export { preview };

export const MAX_HASH = 8192;

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
  for (const [key, raw] of params) {
    if (!Object.hasOwn(SCHEMA, key)) {
      problems.push(`unknown setting “${preview(key)}” ignored`);
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

/** The permalink hash of a preset: the defaults with the preset's values on top. */
export function presetHash(preset) {
  return serialiseHash({ ...defaults(), ...preset });
}
