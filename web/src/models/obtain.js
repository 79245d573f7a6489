// One known model's files, from this browser's storage when they are there, else from the hub
// into storage first: the small files (config.json, tokenizer files) are fetched and checked
// before the weights start, the weights stream into Cache Storage, and the small files are
// stored last, so a model is listed complete only when all of it arrived. A repository without
// model.safetensors is asked for its shards' index and the shards it names (shards.js). What
// comes back is read from the cache: the weights as Blobs on disk, read later piece by piece.
import { parseConfigJson } from '../lm/loading.js';
import { loadTokenizerJson } from '../lm/tokenizer.js';
import { storedFile, storedFiles, storedWeightFiles } from './cache.js';
import { HubError, fetchHubText, fetchHubFile, resolveUrl, streamIntoCache } from './hub.js';
import { INDEX_FILE, shardsOfIndex } from './shards.js';

/** Checks a config.json's text is a JSON object of the architecture the button promised. */
export function checkConfig(text, model) {
  let config;
  try {
    config = parseConfigJson(text, `${model.repo}'s ${model.config}`);
  } catch (e) {
    throw new HubError(e.message, 'wrong-content');
  }
  if (config.model_type !== model.architecture) {
    throw new HubError(
      `${model.repo}'s ${model.config} describes ${config.model_type === undefined ? 'no model_type' : `model_type ${JSON.stringify(config.model_type)}`}, not ${JSON.stringify(model.architecture)}: not the model expected`,
      'wrong-content',
    );
  }
  return config;
}

async function checkSmallFile(file, text, model) {
  if (file === model.config) return checkConfig(text, model);
  if (model.tokenizer === 'tokenizer-json' && file === 'tokenizer.json') {
    try {
      return await loadTokenizerJson(text, `${model.repo}'s tokenizer.json`);
    } catch (e) {
      throw new HubError(e.message, 'wrong-content');
    }
  }
  return null;
}

/**
 * @param {{ model: import('./known-models.js').KnownModel, hub: string, cache: Cache,
 *   fetch?: typeof fetch, signal?: AbortSignal, freeBytes?: () => Promise<number | null>,
 *   online?: () => boolean, blockedBy?: () => string | null,
 *   onProgress?: (p: { file: string, received: number, expected: number | null }) => void }} o
 * @returns {Promise<{ from: 'cache' | 'hub', downloaded: number, downloadMs: number,
 *   config: string, texts: Record<string, string>, weights: Blob | null,
 *   shards: { index: string, files: { name: string, blob: Blob }[] } | null, weightBytes: number,
 *   files: string[] }>} texts: the tokenizer files; weights: model.weights, or null where the
 *   repository ships shards (then `shards`: the index's text and each shard)
 */
export async function obtainModel(o) {
  const { model, hub, cache, signal } = o;
  const t0 = performance.now();
  const { missing } = await storedFiles(cache, hub, model);
  let downloaded = 0;
  if (missing.length) {
    const common = { hub, repo: model.repo, fetch: o.fetch, signal, online: o.online, blockedBy: o.blockedBy };
    const texts = new Map();
    const fetchText = async (file) => {
      const text = await fetchHubText({
        ...common,
        file,
        url: resolveUrl(hub, model.repo, file),
        onBytes: (received, expected) => o.onProgress?.({ file, received, expected }),
      });
      downloaded += new TextEncoder().encode(text).byteLength;
      return text;
    };
    const fetchWeights = async (file) => {
      const url = resolveUrl(hub, model.repo, file);
      const response = await fetchHubFile({ ...common, file, url, weights: true });
      downloaded += await streamIntoCache({
        response,
        cache,
        url,
        file,
        signal,
        freeBytes: (await o.freeBytes?.()) ?? null,
        onBytes: (received, expected) => o.onProgress?.({ file, received, expected }),
      });
    };
    for (const file of missing.filter((f) => f !== model.weights)) {
      const text = await fetchText(file);
      await checkSmallFile(file, text, model);
      texts.set(file, text);
    }
    if (missing.includes(model.weights)) {
      try {
        await fetchWeights(model.weights);
      } catch (e) {
        if (e?.code !== 'no-safetensors') throw e;
        // No model.safetensors: the shards and their index, as from_pretrained falls back.
        const index = await fetchText(INDEX_FILE).catch((e2) => {
          throw e2?.code === 'not-found' ? e : e2;
        });
        for (const shard of shardsOfIndex(index, `${model.repo}'s ${INDEX_FILE}`)) {
          if (!(await storedFile(cache, hub, model, shard))) await fetchWeights(shard);
        }
        texts.set(INDEX_FILE, index); // stored last: the shards are listed once all are there
      }
    }
    if (signal?.aborted) throw new HubError(`${model.label}: download cancelled`, 'cancelled');
    for (const [file, text] of texts) {
      await cache.put(
        resolveUrl(hub, model.repo, file),
        new Response(text, {
          headers: { 'content-type': 'application/json', 'x-poslab-stored-at': new Date().toISOString() },
        }),
      );
    }
  }
  const read = async (file) => {
    const r = await storedFile(cache, hub, model, file);
    if (!r)
      throw new HubError(`${file} of ${model.repo} vanished from this browser's storage; load it again`, 'unavailable');
    return r;
  };
  const texts = {};
  for (const file of model.tokenizerFiles) texts[file] = await (await read(file)).text();
  const config = await (await read(model.config)).text();
  const weightFiles = await storedWeightFiles(cache, hub, model);
  if (!weightFiles)
    throw new HubError(
      `the weights of ${model.repo} vanished from this browser's storage; load it again`,
      'unavailable',
    );
  let weights = null;
  let shards = null;
  if (weightFiles[0] === INDEX_FILE) {
    const index = await (await read(INDEX_FILE)).text();
    const files = [];
    for (const name of weightFiles.slice(1)) files.push({ name, blob: await (await read(name)).blob() });
    shards = { index, files };
  } else {
    weights = await (await read(model.weights)).blob();
  }
  return {
    from: missing.length ? 'hub' : 'cache',
    downloaded,
    downloadMs: missing.length ? performance.now() - t0 : 0,
    config,
    texts,
    weights,
    shards,
    weightBytes: weights ? weights.size : shards.files.reduce((n, f) => n + f.blob.size, 0),
    files: [model.config, ...model.tokenizerFiles, ...weightFiles],
  };
}
