// The page's Content-Security-Policy and the configured hub. A <meta> CSP is read once, when
// the page is parsed: script can add a policy later but only ever narrow what is allowed, so
// the hub cannot be let in at run time after reading poslab.config.json. The choice: the
// build writes connect-src from public/poslab.config.json (vite.config.js calls
// withHubCsp on index.html), so the deployed policy allows the configured hub and its file
// hosts and nothing else; a deployment that edits poslab.config.json without rebuilding is
// told by the page which source its index.html's connect-src lacks (blockedSources), instead
// of seeing an opaque network error.

/** The hub's origin and the hosts it may redirect downloads to: what connect-src must list. */
export function hubSources(config) {
  return [...new Set([new URL(config.hub).origin, ...config.fileHosts])];
}

/** The directives of a policy string: name → source list (the first of a repeated name wins). */
export function parseCsp(policy) {
  const out = new Map();
  for (const part of String(policy).split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name && !out.has(name.toLowerCase())) out.set(name.toLowerCase(), sources);
  }
  return out;
}

/** The policy with the hub's sources added to connect-src (created from default-src if absent). */
export function withHubConnectSrc(policy, config) {
  const directives = parseCsp(policy);
  const connect = directives.get('connect-src') ?? directives.get('default-src') ?? ["'self'"];
  const sources = [...connect.filter((s) => s !== "'none'")];
  for (const s of hubSources(config)) if (!sources.includes(s)) sources.push(s);
  directives.set('connect-src', sources);
  return [...directives].map(([name, list]) => [name, ...list].join(' ')).join('; ');
}

const META_CSP = /(<meta\s+http-equiv="Content-Security-Policy"\s+content=")([^"]*)(")/i;

/** An HTML page with its <meta> CSP's connect-src allowing the hub (the build's rewrite). */
export function withHubCsp(html, config) {
  if (!META_CSP.test(html)) throw new Error('no <meta http-equiv="Content-Security-Policy" content="…"> in the page');
  return html.replace(META_CSP, (_, open, policy, close) => open + withHubConnectSrc(policy, config) + close);
}

const DEFAULT_PORT = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443' };
const portOf = (u) => u.port || DEFAULT_PORT[u.protocol] || '';

/**
 * Whether one CSP source expression allows a request to `url` from a page at `selfOrigin`
 * (CSP3 matching for the forms a policy here uses: 'self', *, scheme:, host-sources with
 * a *. wildcard, a port or :* and a path prefix; 'none' and keywords allow nothing).
 */
export function sourceAllows(source, url, selfOrigin) {
  const u = new URL(url);
  const s = source.trim();
  if (s === "'self'") {
    const self = new URL(selfOrigin);
    return (
      u.host === self.host && (u.protocol === self.protocol || (self.protocol === 'http:' && u.protocol === 'https:'))
    );
  }
  if (s === '*') return /^(https?|wss?):$/.test(u.protocol);
  if (/^[a-z][a-z0-9+.-]*:$/i.test(s)) {
    const p = s.toLowerCase();
    return u.protocol === p || (p === 'http:' && u.protocol === 'https:') || (p === 'ws:' && u.protocol === 'wss:');
  }
  if (s.startsWith("'")) return false;
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*|(?:\*\.)?[^:/]+)(?::(\d+|\*))?(\/.*)?$/i.exec(s);
  if (!m) return false;
  const [, scheme, host, port, path] = m;
  const self = new URL(selfOrigin);
  const want = scheme ? `${scheme.toLowerCase()}:` : self.protocol;
  const upgrade = (want === 'http:' && u.protocol === 'https:') || (want === 'ws:' && u.protocol === 'wss:');
  if (u.protocol !== want && !upgrade) return false;
  const h = host.toLowerCase();
  if (h !== '*') {
    if (h.startsWith('*.')) {
      if (!u.hostname.endsWith(h.slice(1))) return false;
    } else if (u.hostname !== h) return false;
  }
  if (port !== '*') {
    const allowed = port ?? DEFAULT_PORT[want];
    const actual = portOf(u);
    if (actual !== allowed && !(upgrade && port === undefined && actual === DEFAULT_PORT[u.protocol])) return false;
  }
  if (path) {
    const p = decodeURIComponent(path);
    const actual = decodeURIComponent(u.pathname);
    if (p.endsWith('/') ? !actual.startsWith(p) : actual !== p) return false;
  }
  return true;
}

/** Whether a policy's connect-src (or its default-src) lets the page fetch `url`. */
export function connectAllowed(policy, url, selfOrigin) {
  const d = parseCsp(policy);
  const list = d.get('connect-src') ?? d.get('default-src');
  if (!list) return true;
  return list.some((s) => sourceAllows(s, url, selfOrigin));
}

/**
 * The hub sources the page's policies would block, [] when all are allowed (or there is no
 * meta policy: a policy sent as a header cannot be read from script; its blocks still come
 * back as a securitypolicyviolation the view reports). A file host's wildcard is tried as
 * one host under it.
 * @param {string[]} policies the content of each <meta http-equiv="Content-Security-Policy">
 */
export function blockedSources(policies, config, selfOrigin) {
  const probe = (source) => {
    const m = /^(https?):\/\/(\*\.)?([^:/]+)(?::(\d+|\*))?$/.exec(source);
    if (!m) return source;
    const port = m[4] && m[4] !== '*' ? `:${m[4]}` : '';
    return `${m[1]}://${m[2] ? 'files.' : ''}${m[3]}${port}/`;
  };
  return hubSources(config).filter((source) => {
    const url = source === new URL(config.hub).origin ? `${config.hub}/` : probe(source);
    return policies.some((p) => !connectAllowed(p, url, selfOrigin));
  });
}

/** The page's own <meta> policies (their content strings). */
export const metaPolicies = (doc = globalThis.document) =>
  [...(doc?.querySelectorAll('meta[http-equiv="Content-Security-Policy" i]') ?? [])].map((m) => m.content);
