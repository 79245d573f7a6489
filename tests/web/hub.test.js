// The pure parts of the Models view's hub loading, in Node: poslab.config.json parsing and its
// fallbacks, the CSP the build writes and the page checks, URLs, the hub's failures as
// sentences, the streamed .safetensors check, progress wording, and the whole download →
// cache → read sequence against a fake hub (fetch) and a fake Cache Storage.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { encodeSafetensors, shardSafetensors, tinyGpt2Tensors } from '../helpers/safetensors.js';
import { TINY_NEOX_CONFIG, tinyNeoxTensors, tinyTokenizerJson } from '../helpers/tiny-models.js';
import { listStored, deleteStored } from '../../web/src/models/cache.js';
import { DEFAULT_HUB_CONFIG, loadHubConfig, parseHubConfig } from '../../web/src/models/config.js';
import {
  blockedSources,
  connectAllowed,
  parseCsp,
  sourceAllows,
  withHubConnectSrc,
  withHubCsp,
} from '../../web/src/models/csp.js';
import {
  HubError,
  createSafetensorsCheck,
  fetchHubFile,
  httpFailure,
  parseResolveUrl,
  resolveUrl,
  streamIntoCache,
} from '../../web/src/models/hub.js';
import { KNOWN_MODELS, filesOf, knownModel } from '../../web/src/models/known-models.js';
import { obtainModel } from '../../web/src/models/obtain.js';
import { shardsOfIndex } from '../../web/src/models/shards.js';
import { createRateMeter, formatEta, formatRate, progressLine } from '../../web/src/models/progress.js';
import { RUNTIMES, runtimeOf } from '../../web/src/models/runtimes.js';
import { loadTokenizerOf } from '../../web/src/lm/tokenizer.js';

const read = (p) => fs.readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');
const HUB = 'https://hub.example.org';

describe('poslab.config.json', () => {
  it('Config.ShippedFileIsTheDefault', () => {
    const { config, note } = parseHubConfig(read('public/poslab.config.json'));
    expect(note).toBeNull();
    expect(config).toEqual(DEFAULT_HUB_CONFIG);
    expect(config.hub).toBe('https://huggingface.co');
  });

  it('Config.HubIsNormalisedAndFileHostsDefaultOnlyForHuggingFace', () => {
    expect(parseHubConfig('{"hub": "https://huggingface.co/"}').config).toEqual(DEFAULT_HUB_CONFIG);
    const mirror = parseHubConfig('{"hub": "https://mirror.example.org/hf/"}');
    expect(mirror).toEqual({ config: { hub: 'https://mirror.example.org/hf', fileHosts: [] }, note: null });
    const own = parseHubConfig(
      '{"hub": "http://127.0.0.1:8080", "fileHosts": ["HTTP://127.0.0.1:9000/", "https://*.cdn.example"]}',
    );
    expect(own.config).toEqual({
      hub: 'http://127.0.0.1:8080',
      fileHosts: ['http://127.0.0.1:9000', 'https://*.cdn.example'],
    });
  });

  it.each([
    [null, 'not found'],
    ['', 'not valid JSON'],
    ['{"hub": ', 'not valid JSON'],
    ['[]', 'expected a JSON object'],
    ['{}', 'no "hub" key'],
    ['{"hub": 42}', '"hub" must be a URL string'],
    ['{"hub": "huggingface.co"}', '"hub" is not an absolute URL'],
    ['{"hub": "ftp://mirror.example"}', '"hub" must be an http(s) URL, not ftp:'],
    ['{"hub": "javascript:alert(1)"}', '"hub" must be an http(s) URL'],
    ['{"hub": "https://u:p@hub.example"}', 'user name or password'],
    ['{"hub": "https://hub.example/?x=1"}', 'query or fragment'],
    ['{"hub": "https://hub.example", "fileHosts": "https://cdn.example"}', '"fileHosts" must be a list'],
    ['{"hub": "https://hub.example", "fileHosts": ["https://cdn.example; script-src *"]}', 'is not an origin'],
    ['{"hub": "https://hub.example", "fileHosts": ["\'unsafe-inline\'"]}', 'is not an origin'],
    ['{"hub": "https://hub.example", "fileHosts": ["https://cdn.example/path"]}', 'is not an origin'],
  ])('Config.InvalidFileMeansTheDefaultWithANote (%s)', (text, why) => {
    const { config, note } = parseHubConfig(text);
    expect(config).toEqual(DEFAULT_HUB_CONFIG);
    expect(note).toContain(why);
    expect(note).toMatch(/^poslab\.config\.json: .*; using the default hub https:\/\/huggingface\.co$/);
  });

  it('Config.UnknownKeysAreNotedNotFatal', () => {
    const { config, note } = parseHubConfig('{"hub": "https://hub.example", "token": "x"}');
    expect(config.hub).toBe('https://hub.example');
    expect(note).toBe('poslab.config.json: ignored unknown key(s) token');
  });

  it('Config.LoadNeverThrows', async () => {
    const missing = await loadHubConfig(async () => new Response('nope', { status: 404 }));
    expect(missing.note).toContain('not found next to the page (HTTP 404)');
    const down = await loadHubConfig(async () => {
      throw new TypeError('Failed to fetch');
    });
    expect(down.note).toContain('could not be read (Failed to fetch)');
    expect(down.config).toEqual(DEFAULT_HUB_CONFIG);
    const ok = await loadHubConfig(async () => new Response(JSON.stringify({ hub: HUB })));
    expect(ok).toEqual({ config: { hub: HUB, fileHosts: [] }, note: null });
  });
});

describe('CSP for the configured hub', () => {
  const pagePolicy = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(read('web/index.html'))[1];

  it('Csp.BuildAddsOnlyTheHubAndItsFileHosts', () => {
    const html = withHubCsp(read('web/index.html'), parseHubConfig(read('public/poslab.config.json')).config);
    const policy = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)[1];
    const before = parseCsp(pagePolicy);
    const after = parseCsp(policy);
    expect(after.get('connect-src')).toEqual([
      ...before.get('connect-src'),
      'https://huggingface.co',
      'https://*.hf.co',
      'https://*.huggingface.co',
    ]);
    for (const [name, list] of before) if (name !== 'connect-src') expect(after.get(name)).toEqual(list);
    // The build's rewrite is idempotent and never adds a hub twice.
    expect(withHubConnectSrc(policy, DEFAULT_HUB_CONFIG)).toBe(policy);
  });

  it('Csp.ConnectSrcComesFromDefaultSrcWhenAbsent', () => {
    expect(withHubConnectSrc("default-src 'self'", { hub: `${HUB}/x`, fileHosts: [] })).toBe(
      `default-src 'self'; connect-src 'self' ${HUB}`,
    );
    expect(() => withHubCsp('<html></html>', DEFAULT_HUB_CONFIG)).toThrow(/no <meta/);
  });

  it.each([
    ["'self'", 'http://127.0.0.1:4173/x', true],
    ["'self'", 'http://127.0.0.1:9999/x', false],
    ['https:', 'https://any.example/x', true],
    ['https:', 'http://any.example/x', false],
    ['*', 'https://any.example/x', true],
    ['*', 'data:text/plain,x', false],
    ['https://huggingface.co', 'https://huggingface.co/openai-community/gpt2/resolve/main/config.json', true],
    ['https://huggingface.co', 'https://huggingface.co:8443/x', false],
    ['https://huggingface.co', 'http://huggingface.co/x', false],
    ['https://*.hf.co', 'https://cas-bridge.xethub.hf.co/xet/abc', true],
    ['https://*.hf.co', 'https://hf.co/x', false],
    ['https://*.hf.co', 'https://evilhf.co/x', false],
    ['http://127.0.0.1:9000', 'http://127.0.0.1:9000/a', true],
    ['http://127.0.0.1:9000', 'http://127.0.0.1:9001/a', false],
    ['http://127.0.0.1:*', 'http://127.0.0.1:9001/a', true],
    ['http://hub.example', 'https://hub.example/a', true], // an http source allows the https upgrade
    ['https://hub.example/hf/', 'https://hub.example/hf/a/b', true],
    ['https://hub.example/hf/', 'https://hub.example/other', false],
    ["'none'", 'https://hub.example/', false],
  ])('Csp.SourceMatching (%s → %s)', (source, url, allowed) => {
    expect(sourceAllows(source, url, 'http://127.0.0.1:4173')).toBe(allowed);
  });

  it('Csp.BlockedSourcesNamesWhatThePageLacks', () => {
    const self = 'http://127.0.0.1:4173';
    const built = withHubConnectSrc(pagePolicy, DEFAULT_HUB_CONFIG);
    expect(blockedSources([built], DEFAULT_HUB_CONFIG, self)).toEqual([]);
    const mirror = { hub: 'https://mirror.example/hf', fileHosts: ['https://*.cdn.example'] };
    expect(blockedSources([built], mirror, self)).toEqual(['https://mirror.example', 'https://*.cdn.example']);
    expect(blockedSources([withHubConnectSrc(built, mirror)], mirror, self)).toEqual([]);
    expect(blockedSources([], mirror, self)).toEqual([]); // no meta policy: nothing to read
    expect(connectAllowed("default-src 'none'", 'https://hub.example/', self)).toBe(false);
  });
});

describe('hub URLs and failures', () => {
  it('Hub.ResolveUrlRoundTrips', () => {
    const url = resolveUrl(`${HUB}/`, 'EleutherAI/pythia-70m', 'model.safetensors');
    expect(url).toBe(`${HUB}/EleutherAI/pythia-70m/resolve/main/model.safetensors`);
    expect(parseResolveUrl(url)).toEqual({
      hub: HUB,
      repo: 'EleutherAI/pythia-70m',
      revision: 'main',
      file: 'model.safetensors',
    });
    expect(parseResolveUrl(`${HUB}/prefix/a/b/resolve/main/x.json`)).toEqual({
      hub: `${HUB}/prefix`,
      repo: 'a/b',
      revision: 'main',
      file: 'x.json',
    });
    expect(parseResolveUrl(`${HUB}/a/b/blob/main/x.json`)).toBeNull();
  });

  it.each([
    ['../x', 'model.safetensors'],
    ['a/b/c', 'model.safetensors'],
    ['a/b?x=1', 'model.safetensors'],
    ['a/b', '../../etc/passwd'],
    ['a/b', 'x?download=1'],
  ])('Hub.ResolveUrlRefusesOddParts (%s, %s)', (repo, file) => {
    expect(() => resolveUrl(HUB, repo, file)).toThrow(/not a (repository id|file path)/);
  });

  it('Hub.StatusesBecomeSentences', () => {
    const at = { file: 'model.safetensors', repo: 'a/b', hub: HUB };
    const none = httpFailure({ ...at, status: 404, weights: true });
    expect(none.code).toBe('no-safetensors');
    expect(none.message).toBe(
      `a/b has no model.safetensors on ${HUB} (HTTP 404). PosLab reads only safetensors weights and never falls back to pickle (.bin) checkpoints.`,
    );
    expect(httpFailure({ ...at, file: 'config.json', status: 404 }).code).toBe('not-found');
    expect(httpFailure({ ...at, status: 401 }).message).toContain('gated or private');
    expect(httpFailure({ ...at, status: 429 }).message).toContain('rate-limiting');
    expect(httpFailure({ ...at, status: 503 }).message).toContain('HTTP 503');
    expect(httpFailure({ ...at, status: 418 }).message).toBe(`${HUB} answered HTTP 418 for model.safetensors of a/b`);
  });

  const o = { url: `${HUB}/a/b/resolve/main/model.safetensors`, hub: HUB, repo: 'a/b', file: 'model.safetensors' };

  it('Hub.RedirectedResponseIsUsedAndHtmlRefused', async () => {
    const redirected = new Response('x', { headers: { 'content-type': 'application/octet-stream' } });
    Object.defineProperty(redirected, 'url', { value: 'https://files.example/xet/1' });
    const got = await fetchHubFile({ ...o, weights: true, fetch: async () => redirected });
    expect(got).toBe(redirected);
    const html = new Response('<!doctype html>', { headers: { 'content-type': 'text/html; charset=utf-8' } });
    await expect(fetchHubFile({ ...o, fetch: async () => html })).rejects.toMatchObject({ code: 'wrong-content' });
  });

  it('Hub.NetworkFailuresSayWhich', async () => {
    const fail = async () => {
      throw new TypeError('Failed to fetch');
    };
    await expect(fetchHubFile({ ...o, fetch: fail, online: () => false })).rejects.toThrow(
      'model.safetensors: the browser is offline; stored models still load',
    );
    await expect(fetchHubFile({ ...o, fetch: fail, online: () => true })).rejects.toThrow(
      `model.safetensors: could not reach ${HUB} (Failed to fetch)`,
    );
    // A refused redirect is reported under the hub's URL: the message says it was the redirect.
    await expect(fetchHubFile({ ...o, fetch: fail, blockedBy: () => `${HUB}/a/b/resolve/main/x` })).rejects.toThrow(
      `does not allow connecting to the host ${HUB} redirected it to (the hub itself is allowed)`,
    );
    await expect(fetchHubFile({ ...o, fetch: fail, blockedBy: () => 'https://cdn.example/x' })).rejects.toThrow(
      'does not allow connecting to https://cdn.example: list the hosts',
    );
    const controller = new AbortController();
    controller.abort();
    await expect(fetchHubFile({ ...o, fetch: fail, signal: controller.signal })).rejects.toMatchObject({
      code: 'cancelled',
    });
  });
});

const tinyGpt2 = encodeSafetensors(
  tinyGpt2Tensors({ vocab_size: 64, n_positions: 8, n_embd: 8, n_layer: 1, n_head: 2 }, 1),
);

/** Feeds bytes through a check in pieces of `size` bytes. */
function feed(bytes, size) {
  const check = createSafetensorsCheck('model.safetensors');
  for (let at = 0; at < bytes.length; at += size) check.push(bytes.subarray(at, Math.min(bytes.length, at + size)));
  check.end();
  return check;
}

describe('streamed .safetensors check', () => {
  it.each([1, 7, 8, 9, 4096, 1 << 20])('Safetensors.WholeFileInPiecesOf %i bytes', (size) => {
    expect(feed(tinyGpt2, size).expected).toBe(tinyGpt2.length);
  });

  it('Safetensors.CutShortOrLongOrJunkIsRefused', () => {
    expect(() => feed(tinyGpt2.subarray(0, tinyGpt2.length - 1), 1000)).toThrow(
      new RegExp(`the file ended after ${tinyGpt2.length - 1} bytes of the ${tinyGpt2.length} its header gives`),
    );
    expect(() => feed(tinyGpt2.subarray(0, 20), 1000)).toThrow(/ended after 20 bytes, inside its header/);
    const longer = new Uint8Array(tinyGpt2.length + 3);
    longer.set(tinyGpt2);
    expect(() => feed(longer, 1000)).toThrow(/3 bytes past the end its header gives/);
    expect(() => feed(new TextEncoder().encode('<!doctype html><html>…</html>'), 1000)).toThrow(
      /not a \.safetensors file \(its first 8 bytes give a header of \d+ bytes/,
    );
    const bad = tinyGpt2.slice();
    bad[8] = 0x5b; // '[' : the header is not an object
    expect(() => feed(bad, 1000)).toThrow(/not a \.safetensors file/);
    const noTensors = encodeSafetensors([], {});
    expect(() => feed(noTensors, 100)).toThrow(/lists no tensors/);
  });
});

describe('progress wording', () => {
  it('Progress.RateOverTheWindowAndEta', () => {
    let t = 0;
    const meter = createRateMeter({ windowMs: 3000, now: () => t });
    expect(meter.rate()).toBeNull();
    for (let s = 0; s <= 10; s++) {
      t = s * 1000;
      meter.sample(s * 2e6); // 2 MB/s
    }
    expect(meter.rate()).toBeCloseTo(2e6, 6);
    t = 13000;
    meter.sample(20e6); // stalled for 3 s: the rate falls
    expect(meter.rate()).toBeLessThan(1e6);
    meter.reset();
    expect(meter.rate()).toBeNull();
  });

  it('Progress.Formats', () => {
    expect(formatRate(25.1e6)).toBe('25.1 MB/s');
    expect(formatRate(null)).toBe('');
    expect(formatEta(21e6, 1e6)).toBe('about 21 s left');
    expect(formatEta(185e6, 1e6)).toBe('about 3 min 05 s left');
    expect(formatEta(3720e6, 1e6)).toBe('about 1 h 02 min left');
    expect(formatEta(1e15, 1)).toBe('more than 99 h left');
    expect(formatEta(1e6, 0)).toBe('');
    expect(progressLine({ file: 'model.safetensors', received: 12.3e6, expected: 548.1e6, rate: 25.1e6 })).toBe(
      'model.safetensors: 12.3 MB of 548.1 MB (2 %) · 25.1 MB/s · about 22 s left',
    );
    expect(progressLine({ file: 'config.json', received: 665, expected: null, rate: null })).toBe('config.json: 665 B');
  });
});

/** A Cache Storage cache in memory (the subset the page uses). */
function fakeCache() {
  const entries = new Map(); // url → { body: ArrayBuffer, headers }
  return {
    entries,
    async put(url, response) {
      const body = await response.arrayBuffer(); // consumes the stream as the browser does
      entries.set(String(url), { body, headers: [...response.headers] });
    },
    async match(url) {
      const e = entries.get(typeof url === 'string' ? url : url.url);
      return e ? new Response(e.body.slice(0), { headers: e.headers }) : undefined;
    },
    async keys() {
      return [...entries.keys()].map((url) => ({ url }));
    },
    async delete(url) {
      return entries.delete(typeof url === 'string' ? url : url.url);
    },
  };
}

/** A hub in a function: path → body (or a status), recording what was asked. */
function fakeHub(files) {
  const asked = [];
  const fetch = async (url, init) => {
    const path = url.slice(HUB.length);
    asked.push(path);
    if (init?.signal?.aborted) throw new DOMException('aborted', 'AbortError');
    const f = files[path];
    if (f === undefined || typeof f === 'number')
      return new Response('{"error":"Entry not found"}', { status: f ?? 404 });
    const body = typeof f === 'string' ? new TextEncoder().encode(f) : f;
    return new Response(body, { headers: { 'content-length': String(body.length) } });
  };
  return { fetch, asked };
}

const neox = knownModel('pythia-70m');
const gpt2 = knownModel('gpt2');
const at = (repo, file) => `/${repo}/resolve/main/${file}`;
const neoxHub = () => ({
  [at(neox.repo, 'config.json')]: JSON.stringify(TINY_NEOX_CONFIG),
  [at(neox.repo, 'tokenizer.json')]: JSON.stringify(tinyTokenizerJson()),
  [at(neox.repo, 'model.safetensors')]: encodeSafetensors(tinyNeoxTensors(TINY_NEOX_CONFIG, 3, 'F16')),
});

describe('download → cache → read', () => {
  it('Obtain.SmallFilesFirstWeightsStreamedThenFromCacheWithoutTheHub', async () => {
    const hub = fakeHub(neoxHub());
    const cache = fakeCache();
    const seen = [];
    const got = await obtainModel({
      model: neox,
      hub: HUB,
      cache,
      fetch: hub.fetch,
      onProgress: (p) => seen.push(p.file),
    });
    expect(hub.asked).toEqual(filesOf(neox).map((f) => at(neox.repo, f)));
    expect(got.from).toBe('hub');
    expect(got.weights.size).toBe(neoxHub()[at(neox.repo, 'model.safetensors')].length);
    expect(JSON.parse(got.config).model_type).toBe('gpt_neox');
    expect(seen.at(-1)).toBe('model.safetensors');
    const again = await obtainModel({ model: neox, hub: HUB, cache, fetch: hub.fetch });
    expect(hub.asked).toHaveLength(3); // nothing asked the second time
    expect(again.from).toBe('cache');
    const tok = await loadTokenizerOf('tokenizer-json', again.texts);
    expect(tok.encode('the cat sat')).toEqual([118, 259, 263, 265]);
    const stored = await listStored(cache);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ hub: HUB, repo: neox.repo, complete: true });
    expect(await deleteStored(cache, HUB, neox.repo)).toBe(3);
    expect(await listStored(cache)).toEqual([]);
  });

  // A repository in shards (no model.safetensors): the index and each shard it names, stored as
  // they came and read back from the cache as the shards and the index's text.
  it('Obtain.ShardsAndTheirIndexWhenTheRepositoryHasNoModelSafetensors', async () => {
    const small = neoxHub();
    const whole = small[at(neox.repo, 'model.safetensors')];
    delete small[at(neox.repo, 'model.safetensors')];
    const { index, shards } = shardSafetensors(whole, 2);
    const hub = fakeHub({
      ...small,
      [at(neox.repo, 'model.safetensors.index.json')]: index,
      ...Object.fromEntries(shards.map((f) => [at(neox.repo, f.name), f.bytes])),
    });
    const cache = fakeCache();
    const got = await obtainModel({ model: neox, hub: HUB, cache, fetch: hub.fetch });
    const names = shards.map((f) => f.name);
    expect(hub.asked).toEqual(
      ['config.json', 'tokenizer.json', 'model.safetensors', 'model.safetensors.index.json', ...names].map((f) =>
        at(neox.repo, f),
      ),
    );
    expect(got.weights).toBeNull();
    expect(got.shards.index).toBe(index);
    expect(got.shards.files.map((f) => [f.name, f.blob.size])).toEqual(shards.map((f) => [f.name, f.bytes.length]));
    expect(got.weightBytes).toBe(shards.reduce((n, f) => n + f.bytes.length, 0));
    const again = await obtainModel({ model: neox, hub: HUB, cache, fetch: hub.fetch });
    expect(hub.asked).toHaveLength(6); // nothing asked the second time
    expect(again.from).toBe('cache');
    expect(again.files).toEqual(['config.json', 'tokenizer.json', 'model.safetensors.index.json', ...names]);
    expect((await listStored(cache))[0]).toMatchObject({ repo: neox.repo, complete: true });
    // A shard gone from storage: incomplete, and the next load asks for it again.
    await cache.delete(HUB + at(neox.repo, names[1]));
    expect((await listStored(cache))[0].complete).toBe(false);
    await obtainModel({ model: neox, hub: HUB, cache, fetch: hub.fetch });
    expect(hub.asked.slice(6)).toEqual(
      ['model.safetensors', 'model.safetensors.index.json', names[1]].map((f) => at(neox.repo, f)),
    );
    expect(await deleteStored(cache, HUB, neox.repo)).toBe(5);
  });

  it('Obtain.AnIndexMustNameShardFilesBesideIt', () => {
    const index = (map) => JSON.stringify({ weight_map: map });
    expect(shardsOfIndex(index({ a: 'm-1.safetensors', b: 'm-2.safetensors', c: 'm-1.safetensors' }), 'i')).toEqual([
      'm-1.safetensors',
      'm-2.safetensors',
    ]);
    expect(() => shardsOfIndex(index({ a: '../m.safetensors' }), 'i')).toThrow(
      'i: weight_map names "../m.safetensors", not a .safetensors file beside the index',
    );
    expect(() => shardsOfIndex(index({ a: 'm.bin' }), 'i')).toThrow(/not a \.safetensors file/);
    expect(() => shardsOfIndex(index({}), 'i')).toThrow('i: no "weight_map" of tensor names to shard files');
    expect(() => shardsOfIndex('{', 'i')).toThrow(/^i: not valid JSON/);
  });

  it('Obtain.WrongConfigStopsBeforeTheWeights', async () => {
    const files = neoxHub();
    files[at(neox.repo, 'config.json')] = JSON.stringify({ ...TINY_NEOX_CONFIG, model_type: 'llama' });
    const hub = fakeHub(files);
    const cache = fakeCache();
    await expect(obtainModel({ model: neox, hub: HUB, cache, fetch: hub.fetch })).rejects.toThrow(
      `EleutherAI/pythia-70m's config.json describes model_type "llama", not "gpt_neox": not the model expected`,
    );
    expect(hub.asked).toEqual([at(neox.repo, 'config.json')]);
    expect(cache.entries.size).toBe(0);
  });

  it('Obtain.NoSafetensorsIsSaidAndNoPickleIsAsked', async () => {
    const hub = fakeHub({
      [at(gpt2.repo, 'config.json')]: '{"model_type": "gpt2"}',
      [at(gpt2.repo, 'pytorch_model.bin')]: 'x',
    });
    const cache = fakeCache();
    await expect(obtainModel({ model: gpt2, hub: HUB, cache, fetch: hub.fetch })).rejects.toMatchObject({
      code: 'no-safetensors',
    });
    expect(hub.asked.some((p) => p.endsWith('.bin'))).toBe(false);
    expect(cache.entries.size).toBe(0); // config.json is stored only with its weights
  });

  it('Obtain.TokenizerTheLibraryCannotReadIsRefused', async () => {
    const files = neoxHub();
    files[at(neox.repo, 'tokenizer.json')] = JSON.stringify({ model: { type: 'NoSuchModel' } });
    await expect(
      obtainModel({ model: neox, hub: HUB, cache: fakeCache(), fetch: fakeHub(files).fetch }),
    ).rejects.toThrow(/^EleutherAI\/pythia-70m's tokenizer\.json: @huggingface\/tokenizers cannot read it/);
  });

  it('Obtain.CutShortWeightsStoreNothing', async () => {
    const files = neoxHub();
    const whole = files[at(neox.repo, 'model.safetensors')];
    files[at(neox.repo, 'model.safetensors')] = whole.subarray(0, whole.length - 100);
    const cache = fakeCache();
    await expect(obtainModel({ model: neox, hub: HUB, cache, fetch: fakeHub(files).fetch })).rejects.toMatchObject({
      code: 'truncated',
    });
    expect(cache.entries.size).toBe(0);
  });

  it('Obtain.QuotaIsCheckedBeforeTheBody', async () => {
    const bytes = neoxHub()[at(neox.repo, 'model.safetensors')];
    const response = new Response(bytes, { headers: { 'content-length': String(bytes.length) } });
    const cache = fakeCache();
    await expect(
      streamIntoCache({ response, cache, url: `${HUB}/x`, file: 'model.safetensors', freeBytes: 1000 }),
    ).rejects.toMatchObject({ code: 'quota' });
    expect(cache.entries.size).toBe(0);
  });

  it('Obtain.CancelMidWayStoresNothing', async () => {
    const bytes = neoxHub()[at(neox.repo, 'model.safetensors')];
    const controller = new AbortController();
    let sent = 0;
    const body = new ReadableStream({
      pull(c) {
        if (sent >= bytes.length / 2) return new Promise(() => {}); // stalls half-way
        c.enqueue(bytes.subarray(sent, sent + 4096));
        sent += 4096;
      },
    });
    const cache = fakeCache();
    const pending = streamIntoCache({
      response: new Response(body),
      cache,
      url: `${HUB}/x`,
      file: 'model.safetensors',
      signal: controller.signal,
      onBytes: (n) => n > bytes.length / 4 && controller.abort(),
    });
    await expect(pending).rejects.toThrow('model.safetensors: download cancelled; nothing was stored');
    expect(cache.entries.size).toBe(0);
  });
});

describe('known models and runtimes', () => {
  it('Known.EveryModelHasARuntimeSlotAndItsFiles', () => {
    expect(KNOWN_MODELS.map((m) => m.repo)).toEqual([
      'openai-community/gpt2',
      'openai-community/gpt2-medium',
      'EleutherAI/pythia-70m',
      'EleutherAI/pythia-160m',
      'HuggingFaceTB/SmolLM2-135M',
      'HuggingFaceTB/SmolLM2-360M',
      'Qwen/Qwen2.5-0.5B',
      'Qwen/Qwen3-0.6B',
    ]);
    for (const m of KNOWN_MODELS) {
      expect(Object.hasOwn(RUNTIMES, m.architecture)).toBe(true);
      expect(filesOf(m).at(-1)).toMatch(/\.safetensors$/);
      expect(filesOf(m).some((f) => f.endsWith('.bin'))).toBe(false);
    }
    expect(runtimeOf('gpt2').name).toBe('GPT-2');
    expect(runtimeOf('gpt_neox').name).toBe('GPT-NeoX');
    expect(runtimeOf('llama').name).toBe('Llama');
    expect(runtimeOf('qwen2').name).toBe('Llama');
    expect(runtimeOf('qwen3').name).toBe('Llama');
  });

  it('Known.RuntimesHandTheCachedFilesToTheWorkersLoader', async () => {
    const sent = [];
    const compute = { request: async (...args) => (sent.push(args), { model: {}, loadMs: 1 }) };
    const weights = new Blob([new Uint8Array(16)]);
    const onProgress = () => {};
    const texts = { 'tokenizer.json': '{"model":{}}' };
    await runtimeOf('gpt_neox').load({ compute, channel: 'lm-load', weights, config: '{"a":1}', texts, onProgress });
    await runtimeOf('gpt2').load({ compute, channel: 'lm-load', weights, config: '{}', texts: {}, onProgress });
    const [neox, gpt2] = sent;
    expect([neox[0], neox[1], neox[3].onProgress]).toEqual(['lm-load', 'lmLoad', onProgress]);
    expect([neox[2].model.name, neox[2].model.size, await neox[2].config.text()]).toEqual([
      'model.safetensors',
      16,
      '{"a":1}',
    ]);
    expect([neox[2].tokenizer.name, await neox[2].tokenizer.text()]).toEqual(['tokenizer.json', '{"model":{}}']);
    expect(gpt2[2].tokenizer).toBeNull(); // GPT-2 reads its bundled ranks
  });

  it('Known.RuntimesHandStoredShardsToTheWorkersShardedLoad', async () => {
    const sent = [];
    const compute = { request: async (...args) => (sent.push(args), { model: {}, loadMs: 1 }) };
    const files = [
      { name: 'model-00001-of-00002.safetensors', blob: new Blob([new Uint8Array(16)]) },
      { name: 'model-00002-of-00002.safetensors', blob: new Blob([new Uint8Array(8)]) },
    ];
    const shards = { index: '{"weight_map":{}}', files };
    await runtimeOf('llama').load({ compute, channel: 'lm-load', weights: null, shards, config: '{}', texts: {} });
    const [[, job, p]] = sent;
    expect(job).toBe('lmLoad');
    expect(p.model).toBeNull();
    expect([p.index.name, await p.index.text()]).toEqual(['model.safetensors.index.json', '{"weight_map":{}}']);
    expect(p.shards.map((f) => [f.name, f.size])).toEqual([
      ['model-00001-of-00002.safetensors', 16],
      ['model-00002-of-00002.safetensors', 8],
    ]);
  });

  it('Known.UnknownTokenizerKindIsRefused', async () => {
    await expect(loadTokenizerOf('sentencepiece')).rejects.toThrow(/unknown tokenizer kind/);
    await expect(loadTokenizerOf('tokenizer-json', {})).rejects.toThrow('tokenizer.json is missing');
    const gpt2Tok = await loadTokenizerOf('tiktoken-gpt2');
    expect(gpt2Tok.encode('Hello world')).toEqual([15496, 995]);
  });
});

it('HubError.CarriesItsCode', () => {
  const e = new HubError('x', 'blocked');
  expect(e).toBeInstanceOf(Error);
  expect(e.code).toBe('blocked');
});

describe("Pythia's tokenizer.json through @huggingface/tokenizers", () => {
  it('TokenizerJson.EncodesDecodesAndShowsPartialCharactersAsBytes', async () => {
    const tok = await loadTokenizerOf('tokenizer-json', { 'tokenizer.json': JSON.stringify(tinyTokenizerJson()) });
    expect(tok.vocabSize).toBe(273);
    const ids = tok.encode('Hello hello <|endoftext|>🦊');
    expect(ids.slice(0, 4)).toEqual([271, 268, 34, 270]);
    expect(ids).toContain(0); // the special token typed in the text
    expect(tok.piece(0)).toBe('<|endoftext|>');
    expect(tok.piece(270)).toBe('hello');
    const fox = ids.slice(-4).map((id) => tok.piece(id));
    expect(fox.join('')).toBe('\\xf0\\x9f\\xa6\\x8a');
    expect(tok.decode(ids)).toBe('Hello hello <|endoftext|>🦊');
    expect(tok.piece(9999)).toBeNull();
    await expect(loadTokenizerOf('tokenizer-json', { 'tokenizer.json': '{"model": ' })).rejects.toThrow(
      'tokenizer.json: not valid JSON',
    );
  });
});
