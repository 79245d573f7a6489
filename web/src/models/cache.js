// The models kept on this machine: one Cache Storage cache whose entries are keyed by the
// hub URL each file came from, so a second visit reads them from disk and a changed hub is
// never confused with the old one. Lists what is stored per repository (complete when every
// file the model needs is there: its weights whole or in the shards its stored index names),
// reads a stored file, deletes a model.
import { resolveUrl, parseResolveUrl, HubError } from './hub.js';
import { filesOf, knownModelOfRepo } from './known-models.js';
import { INDEX_FILE, shardsOfIndex } from './shards.js';

export const MODEL_CACHE = 'poslab-models-v1';

/** The model cache, or a HubError saying why the browser has none (not a secure context). */
export async function openModelCache(storage = globalThis.caches) {
  if (!storage) {
    throw new HubError(
      'this browser gives the page no Cache Storage (it needs a secure context: https, or http://localhost)',
      'unavailable',
    );
  }
  try {
    return await storage.open(MODEL_CACHE);
  } catch (e) {
    throw new HubError(
      `the browser refused Cache Storage (${e?.message ?? e}); private windows may do this`,
      'unavailable',
    );
  }
}

/** A stored file of `model` from `hub`, or undefined. */
export const storedFile = (cache, hub, model, file) => cache.match(resolveUrl(hub, model.repo, file));

/**
 * The stored weights of `model` from `hub`: [model.weights], or the index and every shard it
 * names (shards.js); null unless all of one or the other is there.
 * @returns {Promise<string[] | null>}
 */
export async function storedWeightFiles(cache, hub, model) {
  if (await storedFile(cache, hub, model, model.weights)) return [model.weights];
  const index = await storedFile(cache, hub, model, INDEX_FILE);
  if (!index) return null;
  let shards;
  try {
    shards = shardsOfIndex(await index.text(), INDEX_FILE);
  } catch {
    return null;
  }
  for (const shard of shards) if (!(await storedFile(cache, hub, model, shard))) return null;
  return [INDEX_FILE, ...shards];
}

/**
 * Which of `model`'s files from `hub` are stored: { stored: string[], missing: string[] }. The
 * weights count as one missing file, model.weights, until all of them are there
 * (storedWeightFiles).
 */
export async function storedFiles(cache, hub, model) {
  const stored = [];
  const missing = [];
  for (const file of filesOf(model).filter((f) => f !== model.weights))
    ((await storedFile(cache, hub, model, file)) ? stored : missing).push(file);
  const weights = await storedWeightFiles(cache, hub, model);
  if (weights) stored.push(...weights);
  else missing.push(model.weights);
  return { stored, missing };
}

/**
 * Every stored repository: [{ hub, repo, model (the known model or undefined), files:
 * [{ file, bytes }], bytes, complete, storedAt }], newest first. Sizes come from the stored
 * bodies (a Blob of a cached response is a handle on disk, not a read).
 */
export async function listStored(cache) {
  const groups = new Map();
  for (const request of await cache.keys()) {
    const where = parseResolveUrl(request.url);
    if (!where) continue;
    const key = `${where.hub}\n${where.repo}`;
    if (!groups.has(key)) {
      groups.set(key, { hub: where.hub, repo: where.repo, model: knownModelOfRepo(where.repo), files: [] });
    }
    const response = await cache.match(request);
    if (!response) continue;
    const bytes = (await response.blob()).size;
    groups.get(key).files.push({ file: where.file, bytes, storedAt: response.headers.get('x-poslab-stored-at') });
  }
  const complete = async (g) => (g.model ? (await storedFiles(cache, g.hub, g.model)).missing.length === 0 : false);
  const listed = await Promise.all([...groups.values()].map(async (g) => ({ ...g, complete: await complete(g) })));
  return listed
    .map((g) => ({
      ...g,
      bytes: g.files.reduce((a, f) => a + f.bytes, 0),
      storedAt:
        g.files
          .map((f) => f.storedAt ?? '')
          .sort()
          .at(-1) ?? '',
    }))
    .sort((a, b) => (a.storedAt < b.storedAt ? 1 : a.storedAt > b.storedAt ? -1 : a.repo.localeCompare(b.repo)));
}

/** Deletes every stored file of `repo` from `hub`; resolves with how many were removed. */
export async function deleteStored(cache, hub, repo) {
  let n = 0;
  for (const request of await cache.keys()) {
    const where = parseResolveUrl(request.url);
    if (where && where.hub === hub && where.repo === repo && (await cache.delete(request))) n++;
  }
  return n;
}

/** Bytes the page may still store (null when the browser does not say). */
export async function freeBytes(storage = globalThis.navigator?.storage) {
  try {
    const { quota, usage } = (await storage?.estimate?.()) ?? {};
    return Number.isFinite(quota) && Number.isFinite(usage) ? quota - usage : null;
  } catch {
    return null;
  }
}
