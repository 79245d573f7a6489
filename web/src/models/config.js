// Where the Models view downloads from: poslab.config.json, served next to index.html,
// `{"hub": "https://huggingface.co", "fileHosts": [...]}`, so a mirror or a self-hosted copy of
// the Hub's file layout only changes that file (and the page's CSP, built from the same file:
// see csp.js). A missing or invalid file means the default hub, with a note saying why; it
// never stops the page. Pure parsing here; the one fetch is loadHubConfig's.

export const CONFIG_FILE = 'poslab.config.json';

const HF = 'https://huggingface.co';
// The Hub answers `resolve` for large files with a redirect to its file hosts (cdn-lfs*.hf.co,
// cas-bridge.xethub.hf.co, …): a CSP must allow those as well as the hub.
const HF_FILE_HOSTS = Object.freeze(['https://*.hf.co', 'https://*.huggingface.co']);

/** The configuration without a (valid) file. */
export const DEFAULT_HUB_CONFIG = Object.freeze({ hub: HF, fileHosts: HF_FILE_HOSTS });

// A CSP host-source without a path: scheme, host (optionally *. prefixed) and an optional port.
const HOST_SOURCE = /^https?:\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:(\d{1,5}|\*))?$/;

/**
 * The hub's base URL, normalised (no trailing slash), or throws saying what is wrong.
 * http is allowed (a self-hosted copy on a LAN); the page's own origin decides whether the
 * browser lets it connect (an https page cannot fetch http).
 */
export function normaliseHub(value) {
  if (typeof value !== 'string' || value.trim() === '') throw new Error('"hub" must be a URL string');
  let url;
  try {
    url = new URL(value.trim());
  } catch {
    throw new Error(`"hub" is not an absolute URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`"hub" must be an http(s) URL, not ${url.protocol}`);
  }
  if (url.username || url.password) throw new Error('"hub" must not carry a user name or password');
  if (url.search || url.hash) throw new Error('"hub" must not have a query or fragment');
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

function normaliseFileHosts(value) {
  if (!Array.isArray(value)) throw new Error('"fileHosts" must be a list of origins such as "https://*.hf.co"');
  if (value.length > 16) throw new Error(`"fileHosts" lists ${value.length} hosts; at most 16`);
  return value.map((h) => {
    const s = typeof h === 'string' ? h.trim().toLowerCase().replace(/\/$/, '') : '';
    if (!HOST_SOURCE.test(s)) {
      throw new Error(`"fileHosts" entry ${JSON.stringify(h)} is not an origin such as "https://cdn.example.org"`);
    }
    return s;
  });
}

/**
 * poslab.config.json's text → { config: { hub, fileHosts }, note }. Never throws: an invalid
 * file gives the default configuration and a note that names the problem. Without "fileHosts",
 * the Hugging Face hub keeps its file hosts and any other hub has none (it serves its files
 * itself, or lists where it redirects).
 * @param {string | null} text the file's text (null: there is no file)
 * @param {string} [why] why there is no text (for the note)
 * @returns {{ config: { hub: string, fileHosts: readonly string[] }, note: string | null }}
 */
export function parseHubConfig(text, why = 'not found') {
  const fallback = (problem) => ({
    config: DEFAULT_HUB_CONFIG,
    note: `${CONFIG_FILE}: ${problem}; using the default hub ${DEFAULT_HUB_CONFIG.hub}`,
  });
  if (text === null || text === undefined) return fallback(why);
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return fallback(`not valid JSON (${e.message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fallback('expected a JSON object such as {"hub": "https://huggingface.co"}');
  }
  if (!Object.hasOwn(value, 'hub')) return fallback('no "hub" key');
  let hub;
  let fileHosts;
  try {
    hub = normaliseHub(value.hub);
    fileHosts = Object.hasOwn(value, 'fileHosts')
      ? normaliseFileHosts(value.fileHosts)
      : new URL(hub).origin === HF
        ? HF_FILE_HOSTS
        : [];
  } catch (e) {
    return fallback(e.message);
  }
  const unknown = Object.keys(value).filter((k) => k !== 'hub' && k !== 'fileHosts');
  return {
    config: Object.freeze({ hub, fileHosts: Object.freeze([...fileHosts]) }),
    note: unknown.length ? `${CONFIG_FILE}: ignored unknown key(s) ${unknown.join(', ')}` : null,
  };
}

/**
 * Reads poslab.config.json next to the page (never from the HTTP cache, so an edited file
 * counts at once). Never throws.
 * @param {typeof fetch} [fetchImpl]
 * @param {string | URL} [url]
 */
export async function loadHubConfig(fetchImpl = globalThis.fetch, url = `./${CONFIG_FILE}`) {
  let response;
  try {
    response = await fetchImpl(url, { cache: 'no-cache', credentials: 'same-origin' });
  } catch (e) {
    return parseHubConfig(null, `could not be read (${e?.message ?? e})`);
  }
  if (!response.ok) return parseHubConfig(null, `not found next to the page (HTTP ${response.status})`);
  return parseHubConfig(await response.text());
}
