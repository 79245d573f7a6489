// Downloads a model's files from a hub laid out as Hugging Face's (`{hub}/{repo}/resolve/main/
// {file}`): the small files into memory (checked before the weights start), the weights
// streamed straight into Cache Storage (never held whole in memory, never teed), each failure
// turned into a sentence that names the file, the repository and what to do. Only
// .safetensors weights are ever fetched: a repository without them is reported, never
// replaced by its pickle (.bin) checkpoint.

/** A download failure; `code` says which kind, for the page and the tests. */
export class HubError extends Error {
  /**
   * @param {string} message
   * @param {'not-found' | 'no-safetensors' | 'refused' | 'http' | 'network' | 'blocked' | 'cancelled' |
   *   'truncated' | 'wrong-content' | 'quota' | 'unavailable'} code
   */
  constructor(message, code) {
    super(message);
    this.name = 'HubError';
    this.code = code;
  }
}

const REPO = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
const FILE = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** `{hub}/{repo}/resolve/{revision}/{file}`, each part checked (no "..", no query). */
export function resolveUrl(hub, repo, file, revision = 'main') {
  if (!REPO.test(repo) || repo.includes('..')) throw new Error(`not a repository id: ${JSON.stringify(repo)}`);
  if (!FILE.test(file) || file.split('/').includes('..')) throw new Error(`not a file path: ${JSON.stringify(file)}`);
  if (!FILE.test(revision) || revision.includes('..')) throw new Error(`not a revision: ${JSON.stringify(revision)}`);
  return `${hub.replace(/\/+$/, '')}/${repo}/resolve/${revision}/${file}`;
}

/** resolveUrl's inverse: { hub, repo, revision, file }, or null for any other URL. */
export function parseResolveUrl(url) {
  const m = /^(https?:\/\/.+?)\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/([^?#]+)$/.exec(String(url));
  if (!m || !REPO.test(m[2])) return null;
  return { hub: m[1], repo: m[2], revision: m[3], file: m[4] };
}

/**
 * The sentence for an HTTP status the hub answered with.
 * @param {{ status: number, file: string, repo: string, hub: string, weights?: boolean }} o
 */
export function httpFailure({ status, file, repo, hub, weights = false }) {
  if (status === 404 && weights) {
    return new HubError(
      `${repo} has no ${file} on ${hub} (HTTP 404). PosLab reads only safetensors weights and never falls back to pickle (.bin) checkpoints.`,
      'no-safetensors',
    );
  }
  if (status === 404) return new HubError(`${repo} has no ${file} on ${hub} (HTTP 404)`, 'not-found');
  if (status === 401 || status === 403) {
    return new HubError(
      `${hub} refused ${file} of ${repo} (HTTP ${status}): the repository may be gated or private, and PosLab sends no sign-in token`,
      'refused',
    );
  }
  if (status === 429) return new HubError(`${hub} is rate-limiting downloads (HTTP 429): try again later`, 'http');
  if (status >= 500)
    return new HubError(`${hub} failed to serve ${file} of ${repo} (HTTP ${status}): try again later`, 'http');
  return new HubError(`${hub} answered HTTP ${status} for ${file} of ${repo}`, 'http');
}

/** The body's length from Content-Length (a CORS-safelisted header), or null when unknown. */
export function contentLength(response) {
  const v = response.headers.get('content-length');
  if (v === null || !/^\d+$/.test(v.trim())) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : null;
}

const abortError = (signal, what) =>
  signal?.aborted ? new HubError(`${what}: download cancelled; nothing was stored`, 'cancelled') : null;

/**
 * fetch() of one hub file: the response when it is 200 and not an HTML page, else a HubError.
 * Redirects are followed (the Hub sends large files to its file hosts); the HTTP cache is
 * bypassed so a model is never stored twice. `blockedBy()` names a URL the page's CSP
 * refused during the request (a refused redirect target looks like any network error).
 * @param {{ url: string, hub: string, repo: string, file: string, weights?: boolean,
 *   fetch?: typeof fetch, signal?: AbortSignal, online?: () => boolean, blockedBy?: () => string | null }} o
 */
export async function fetchHubFile(o) {
  const { url, hub, repo, file, weights = false, signal } = o;
  let response;
  try {
    response = await (o.fetch ?? globalThis.fetch)(url, {
      signal,
      mode: 'cors',
      credentials: 'omit',
      cache: 'no-store',
      redirect: 'follow',
    });
  } catch (e) {
    // The browser reports a CSP refusal (securitypolicyviolation) in a task after the rejection.
    if (o.blockedBy && !signal?.aborted) await new Promise((r) => setTimeout(r, 100));
    throw abortError(signal, file) ?? networkFailure(e, o);
  }
  if (!response.ok) {
    response.body?.cancel().catch(() => {});
    throw httpFailure({ status: response.status, file, repo, hub, weights });
  }
  const type = response.headers.get('content-type') ?? '';
  if (/^text\/html\b/i.test(type)) {
    response.body?.cancel().catch(() => {});
    throw new HubError(
      `${hub} answered ${file} of ${repo} with an HTML page, not the file (a sign-in, error or portal page?)`,
      'wrong-content',
    );
  }
  return response;
}

/** A rejected fetch or a body that stopped: offline, refused by the CSP, or the connection. */
function networkFailure(e, { hub, file, online = () => globalThis.navigator?.onLine ?? true, blockedBy }) {
  const blocked = blockedBy?.();
  if (blocked) {
    // Browsers report a refused redirect under the URL before the redirect (CSP3 hides where
    // it led), so a refusal that names the hub means the host the hub redirected to.
    const origin = URL.canParse(blocked) ? new URL(blocked).origin : blocked;
    const where =
      origin === new URL(hub).origin ? `the host ${hub} redirected it to (the hub itself is allowed)` : origin;
    return new HubError(
      `${file}: this page's Content-Security-Policy does not allow connecting to ${where}: ` +
        'list the hosts the hub sends downloads to in "fileHosts" of poslab.config.json and rebuild the page',
      'blocked',
    );
  }
  if (!online()) return new HubError(`${file}: the browser is offline; stored models still load`, 'network');
  return new HubError(
    `${file}: could not reach ${hub} (${e?.message ?? e}): no network, a firewall, or a hub that does not allow cross-origin downloads`,
    'network',
  );
}

/**
 * The small file's text (config.json, tokenizer.json), with progress and the same failures.
 * @param {Parameters<typeof fetchHubFile>[0] & { onBytes?: (received: number, expected: number | null) => void }} o
 */
export async function fetchHubText(o) {
  const response = await fetchHubFile(o);
  const expected = contentLength(response);
  const parts = [];
  let received = 0;
  try {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      received += value.byteLength;
      if (received > 64e6) {
        reader.cancel().catch(() => {});
        throw new HubError(`${o.file}: more than 64 MB; not the small file expected`, 'wrong-content');
      }
      o.onBytes?.(received, expected);
    }
  } catch (e) {
    if (e instanceof HubError) throw e;
    throw abortError(o.signal, o.file) ?? stopped(o.file, received, expected, e);
  }
  if (expected !== null && received < expected) throw stopped(o.file, received, expected);
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HubError(`${o.file}: not UTF-8 text; not the file expected`, 'wrong-content');
  }
}

const stopped = (file, received, expected, e) =>
  new HubError(
    `${file}: the download stopped after ${received} of ${expected ?? 'an unknown number of'} bytes` +
      `${e ? ` (${e.message ?? e})` : ''}; nothing was stored`,
    'truncated',
  );

// Safetensors' own cap on the JSON header (safetensors' MAX_HEADER_SIZE).
const MAX_HEADER = 100_000_000;

/**
 * Checks a .safetensors byte stream as it goes by, without keeping it: the 8-byte header
 * length, the JSON header (tensors with dtype, shape and data_offsets), and then that the file
 * ends exactly where the header says its data ends. Throws a HubError ('wrong-content' or
 * 'truncated') naming the file. The architecture's loader checks names and shapes later.
 */
export function createSafetensorsCheck(name) {
  let received = 0;
  let headerLength = null;
  let total = null; // 8 + N + data bytes, once the header is read
  const head = []; // the first 8 + N bytes, kept only until the header is parsed
  let headBytes = 0;
  const wrong = (why) => new HubError(`${name}: not a .safetensors file (${why})`, 'wrong-content');

  function parseHeader(bytes) {
    let header;
    try {
      header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8)));
    } catch (e) {
      throw wrong(`its header is not JSON: ${e.message}`);
    }
    if (header === null || typeof header !== 'object' || Array.isArray(header))
      throw wrong('its header is not an object');
    let end = 0;
    let tensors = 0;
    for (const [key, t] of Object.entries(header)) {
      if (key === '__metadata__') continue;
      const offsets = t?.data_offsets;
      const ok =
        typeof t?.dtype === 'string' &&
        Array.isArray(t.shape) &&
        Array.isArray(offsets) &&
        offsets.length === 2 &&
        offsets.every((x) => Number.isSafeInteger(x) && x >= 0) &&
        offsets[0] <= offsets[1];
      if (!ok) throw wrong(`tensor ${JSON.stringify(key)} has no valid dtype, shape and data_offsets`);
      end = Math.max(end, offsets[1]);
      tensors++;
    }
    if (tensors === 0) throw wrong('its header lists no tensors');
    return 8 + headerLength + end;
  }

  return {
    /** Feeds the next bytes of the file. */
    push(chunk) {
      received += chunk.byteLength;
      if (total === null) {
        head.push(chunk);
        headBytes += chunk.byteLength;
        if (headerLength === null && headBytes >= 8) {
          const first = concat(head, 8);
          const n = new DataView(first.buffer, first.byteOffset, 8).getBigUint64(0, true);
          if (n < 2n || n > BigInt(MAX_HEADER)) {
            throw wrong(`its first 8 bytes give a header of ${n} bytes (at most ${MAX_HEADER})`);
          }
          headerLength = Number(n);
        }
        if (headerLength !== null && headBytes >= 8 + headerLength) {
          total = parseHeader(concat(head, 8 + headerLength));
          head.length = 0;
        }
      }
      if (total !== null && received > total) {
        throw wrong(`${received - total} bytes past the end its header gives (${total} bytes)`);
      }
    },
    /** The stream has ended: throws if it ended before the header said. */
    end() {
      if (total === null || received < total) {
        throw new HubError(
          `${name}: the file ended after ${received} bytes${total === null ? ', inside its header' : ` of the ${total} its header gives`}; nothing was stored`,
          'truncated',
        );
      }
    },
    /** Bytes the header says the file has (null until the header has gone by). */
    get expected() {
      return total;
    },
  };
}

function concat(chunks, n) {
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    if (at >= n) break;
    const take = Math.min(c.byteLength, n - at);
    out.set(c.subarray(0, take), at);
    at += take;
  }
  return out;
}

/**
 * Streams the weights' response body into `cache` under `url`, checking it on the way
 * (createSafetensorsCheck) and reporting bytes. The browser writes the body to disk as it
 * arrives; a body that fails a check, stops early or is cancelled makes cache.put reject, and
 * nothing is stored. Resolves with the bytes stored.
 * @param {{ response: Response, cache: Cache, url: string, file: string,
 *   signal?: AbortSignal, onBytes?: (received: number, expected: number | null) => void,
 *   freeBytes?: number | null }} o
 */
export async function streamIntoCache({ response, cache, url, file, signal, onBytes, freeBytes = null }) {
  const declared = contentLength(response);
  if (declared !== null && freeBytes !== null && declared > freeBytes) {
    response.body?.cancel().catch(() => {});
    throw new HubError(
      `${file} needs ${declared} bytes but the browser lets this page store only ${Math.max(0, Math.floor(freeBytes))} more: delete stored models or free disk space`,
      'quota',
    );
  }
  const check = createSafetensorsCheck(file);
  let failure = null;
  let received = 0;
  const counter = new TransformStream({
    transform(chunk, controller) {
      try {
        check.push(chunk);
      } catch (e) {
        failure = e;
        throw e;
      }
      received += chunk.byteLength;
      onBytes?.(received, check.expected ?? declared);
      controller.enqueue(chunk);
    },
    flush() {
      try {
        check.end();
      } catch (e) {
        failure = e;
        throw e;
      }
    },
  });
  const body = response.body.pipeThrough(counter, { signal });
  const stored = new Response(body, {
    headers: {
      'content-type': 'application/octet-stream',
      'x-poslab-source': response.url || url,
      'x-poslab-stored-at': new Date().toISOString(),
    },
  });
  try {
    await cache.put(url, stored);
  } catch (e) {
    await cache.delete(url).catch(() => {});
    if (failure) throw failure;
    const cancelled = abortError(signal, file);
    if (cancelled) throw cancelled;
    if (e?.name === 'QuotaExceededError') {
      throw new HubError(
        `${file}: the browser's storage for this page is full: delete stored models or free disk space`,
        'quota',
      );
    }
    throw stopped(file, received, check.expected ?? declared, e);
  }
  return received;
}
