// One known model's files, from this browser's storage when they are there, else from the hub
// into storage first: the small files (config.json, tokenizer files) are fetched and checked
// before the weights start, the weights stream into Cache Storage, and the small files are
// stored last, so a model is listed complete only when all of it arrived. What comes back is
// read from the cache: the weights as a Blob on disk, read later piece by piece.
import { parseConfigJson } from '../gpt2/loading.js';
import { loadTokenizerJson } from '../gpt2/tokenizer.js';
import { storedFile, storedFiles } from './cache.js';
import { HubError, fetchHubText, fetchHubFile, resolveUrl, streamIntoCache } from './hub.js';
import { filesOf } from './known-models.js';

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
 *   config: string, texts: Record<string, string>, weights: Blob }>} texts: the tokenizer files
 */
export async function obtainModel(o) {
  const { model, hub, cache, signal } = o;
  const t0 = performance.now();
  const { missing } = await storedFiles(cache, hub, model);
  let downloaded = 0;
  if (missing.length) {
    const common = { hub, repo: model.repo, fetch: o.fetch, signal, online: o.online, blockedBy: o.blockedBy };
    const texts = new Map();
    for (const file of missing.filter((f) => f !== model.weights)) {
      const text = await fetchHubText({
        ...common,
        file,
        url: resolveUrl(hub, model.repo, file),
        onBytes: (received, expected) => o.onProgress?.({ file, received, expected }),
      });
      await checkSmallFile(file, text, model);
      texts.set(file, text);
      downloaded += new TextEncoder().encode(text).byteLength;
    }
    if (missing.includes(model.weights)) {
      const url = resolveUrl(hub, model.repo, model.weights);
      const response = await fetchHubFile({ ...common, file: model.weights, url, weights: true });
      downloaded += await streamIntoCache({
        response,
        cache,
        url,
        file: model.weights,
        signal,
        freeBytes: (await o.freeBytes?.()) ?? null,
        onBytes: (received, expected) => o.onProgress?.({ file: model.weights, received, expected }),
      });
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
  const weights = await (await read(model.weights)).blob();
  return {
    from: missing.length ? 'hub' : 'cache',
    downloaded,
    downloadMs: missing.length ? performance.now() - t0 : 0,
    config,
    texts,
    weights,
    files: filesOf(model),
  };
}
