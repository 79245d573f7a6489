// Sharded checkpoints on a hub: a model too large for one file ships as shards
// (model-00001-of-00002.safetensors, …) and model.safetensors.index.json, whose "weight_map"
// names the shard of each tensor. Where a repository has no model.safetensors, the page
// fetches the index and its shards instead, as transformers' from_pretrained does.
import { HubError } from './hub.js';

export const INDEX_FILE = 'model.safetensors.index.json';

// A shard lies beside its index: a plain file name, no folder.
const SHARD = /^[A-Za-z0-9_-][A-Za-z0-9._-]*\.safetensors$/;

/**
 * The shard files an index's text names, each once, in the order first named; a HubError
 * ('wrong-content') naming `name` when the text is not such an index.
 * @returns {string[]}
 */
export function shardsOfIndex(text, name) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new HubError(`${name}: not valid JSON (${e.message})`, 'wrong-content');
  }
  const map = value?.weight_map;
  if (!map || typeof map !== 'object' || Array.isArray(map) || Object.keys(map).length === 0) {
    throw new HubError(`${name}: no "weight_map" of tensor names to shard files`, 'wrong-content');
  }
  const shards = [];
  for (const file of Object.values(map)) {
    if (typeof file !== 'string' || !SHARD.test(file)) {
      throw new HubError(
        `${name}: weight_map names ${JSON.stringify(file)}, not a .safetensors file beside the index`,
        'wrong-content',
      );
    }
    if (!shards.includes(file)) shards.push(file);
  }
  return shards;
}
