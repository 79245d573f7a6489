// Reads a local model.safetensors (a browser File, or any Blob) into the wasm core piece by
// piece: the 8-byte length, the JSON header, then the data buffer in chunks of a few MB handed
// to the architecture's loader (lm/architectures.js: lab.gpt2Loader, gptNeoxLoader or
// llamaLoader).append; a sharded checkpoint's shards one after another into its sharded
// loader. The file is never held whole in memory, never leaves the machine, and the loader is
// deleted whether loading finishes or fails.

import { architecture as describeArchitecture } from './architectures.js';

export const CHUNK_BYTES = 4 << 20;

const bytes = async (blob, begin, end) => new Uint8Array(await blob.slice(begin, end).arrayBuffer());

/**
 * @param {any} lab the bound language-model API (lab.safetensorsHeaderLength, the
 *   architectures' loaders, lab.architectureOf)
 * @param {Blob} file the checkpoint
 * @param {{ name?: string, config?: object, chunkBytes?: number,
 *   architecture?: string, onArchitecture?: (a: string) => void,
 *   onProgress?: (p: { received: number, expected: number }) => void,
 *   cancelled?: () => boolean }} [opts] architecture: config.json's model_type; without it the
 *   checkpoint's tensor names decide (lab.architectureOf). onArchitecture runs before any
 *   weight is read and may refuse by throwing.
 * @returns {Promise<any>} the model (GPT-2's, or another's with .architecture; the caller owns
 *   it and deletes it)
 */
export async function loadCheckpoint(lab, file, opts = {}) {
  const name = opts.name ?? file.name ?? 'model.safetensors';
  const chunkBytes = chunkBytesOf(opts);
  const { header, start } = await headerOf(lab, file, name);
  const architecture = opts.architecture ?? lab.architectureOf?.(header, file.size, name) ?? 'gpt2';
  const described = describedOf(architecture, name);
  opts.onArchitecture?.(architecture);
  const loader = lab[described.loader]({
    header,
    fileSize: file.size,
    name,
    ...(opts.config ? { config: opts.config } : {}),
  });
  return streamInto(loader, [{ file, name, start }], chunkBytes, opts);
}

/**
 * A sharded checkpoint: model.safetensors.index.json's text and the shard files it names, read
 * shard after shard into one loader. Its config is needed (opts.config and opts.architecture,
 * config.json's model_type): the index names tensors, not the model.
 * @param {any} lab
 * @param {{ index: string, name?: string, shards: (Blob & { name: string })[] }} checkpoint
 * @param {{ config?: object, architecture?: string, chunkBytes?: number,
 *   onArchitecture?: (a: string) => void, onProgress?: Function, cancelled?: () => boolean }} opts
 */
export async function loadShardedCheckpoint(lab, checkpoint, opts = {}) {
  const name = checkpoint.name ?? 'model.safetensors.index.json';
  const chunkBytes = chunkBytesOf(opts);
  if (!opts.config || !opts.architecture) {
    throw new Error(`${name}: a sharded checkpoint is read with its config.json; pick it with the shards`);
  }
  const described = describedOf(opts.architecture, name);
  opts.onArchitecture?.(opts.architecture);
  const parts = [];
  for (const file of checkpoint.shards)
    parts.push({ file, name: file.name, ...(await headerOf(lab, file, file.name)) });
  const loader = lab[described.shardedLoader]({
    index: checkpoint.index,
    name,
    shards: parts.map((p) => ({ name: p.name, header: p.header, fileSize: p.file.size })),
    config: opts.config,
  });
  // The loader checked that every shard it reads was given; it reads them in its own order.
  const byName = new Map(parts.map((p) => [p.name, p]));
  return streamInto(
    loader,
    loader.shards.map((shard) => byName.get(shard)),
    chunkBytes,
    opts,
  );
}

function chunkBytesOf(opts) {
  const chunkBytes = opts.chunkBytes ?? CHUNK_BYTES;
  if (!(chunkBytes > 0)) throw new RangeError('chunkBytes must be positive');
  return chunkBytes;
}

// A .safetensors file's first 8 + N bytes (N: its JSON header's length) and where its data starts.
async function headerOf(lab, file, name) {
  const size = file.size;
  if (size < 8) throw new Error(`${name}: ${size} bytes is too short for a .safetensors file (it starts with 8)`);
  const n = lab.safetensorsHeaderLength(await bytes(file, 0, 8), size, name);
  return { header: await bytes(file, 0, 8 + n), start: 8 + n };
}

function describedOf(architecture, name) {
  try {
    return describeArchitecture(architecture);
  } catch (e) {
    throw new Error(`${name}: ${e.message}`);
  }
}

// Each file's bytes after its header, in order, into the loader (nextFile() between two files);
// the loader is deleted whether loading finishes or fails.
async function streamInto(loader, files, chunkBytes, opts) {
  try {
    const expected = loader.expected;
    opts.onProgress?.({ received: 0, expected });
    for (const [k, { file, name, start }] of files.entries()) {
      if (k > 0) loader.nextFile();
      for (let at = start; at < file.size; at += chunkBytes) {
        if (opts.cancelled?.()) throw new Error(`${name}: loading cancelled`);
        loader.append(await bytes(file, at, Math.min(file.size, at + chunkBytes)));
        opts.onProgress?.({ received: loader.received(), expected });
      }
    }
    return loader.finish();
  } finally {
    loader.delete();
  }
}

/**
 * A config.json's text → the object lab.gpt2Config / gpt2Loader take (HF keys). Only
 * checks it is a JSON object; the core checks the values and names what is wrong.
 */
export function parseConfigJson(text, name = 'config.json') {
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`${name}: not valid JSON (${e.message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`${name}: expected a JSON object with vocab_size, n_positions, n_embd, n_layer, n_head`);
  }
  return value;
}

/**
 * Sorts picked files into the checkpoint, its optional config.json and its optional
 * tokenizer.json (GPT-NeoX's vocabulary; GPT-2 reads its bundled ranks). A sharded checkpoint
 * is its model.safetensors.index.json and the shard files: then `model` is null and `index`
 * and `shards` hold them (the core checks that the shards are the ones the index names).
 * @param {{ name: string }[]} files
 * @returns {{ model: any|null, index?: any, shards?: any[], config: any|null, tokenizer: any|null }}
 */
export function pickFiles(files) {
  const list = Array.from(files ?? []);
  const isTokenizer = (f) => /(^|[\\/])tokenizer\.json$/i.test(f.name);
  const isIndex = (f) => /\.index\.json$/i.test(f.name);
  const tokenizers = list.filter(isTokenizer);
  const indexes = list.filter(isIndex);
  const json = list.filter((f) => /\.json$/i.test(f.name) && !isTokenizer(f) && !isIndex(f));
  const models = list.filter((f) => !/\.json$/i.test(f.name));
  if (json.length > 1) throw new Error(`pick at most one config.json, not ${json.length}`);
  if (tokenizers.length > 1) throw new Error(`pick at most one tokenizer.json, not ${tokenizers.length}`);
  const config = json[0] ?? null;
  const tokenizer = tokenizers[0] ?? null;
  if (indexes.length > 1) throw new Error(`pick one checkpoint index, not ${indexes.length}`);
  if (indexes.length === 1) {
    if (models.length === 0) throw new Error(`pick the shard files ${indexes[0].name} names with it`);
    return { model: null, index: indexes[0], shards: models, config, tokenizer };
  }
  if (models.length !== 1) {
    throw new Error(
      models.length === 0
        ? 'pick a .safetensors checkpoint (a config.json alone is not a model)'
        : `pick one checkpoint, not ${models.length} (${models.map((f) => f.name).join(', ')}), or a sharded one's model.safetensors.index.json with its shards`,
    );
  }
  return { model: models[0], config, tokenizer };
}

/** The picked checkpoint's name and size in bytes (a sharded one's: its index and all shards). */
export function checkpointOf(picked) {
  if (picked.model) return { name: picked.model.name, bytes: picked.model.size };
  return { name: picked.index.name, bytes: picked.shards.reduce((n, f) => n + f.size, 0) };
}
