// Reads a local model.safetensors (a browser File, or any Blob) into the wasm core piece by
// piece: the 8-byte length, the JSON header, then the data buffer in chunks of a few MB handed
// to the architecture's loader (gpt2/architectures.js: lab.gpt2Loader, gptNeoxLoader or llamaLoader).append. The file is never held whole in memory, never leaves the
// machine, and the loader is deleted whether loading finishes or fails.

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
  const chunkBytes = opts.chunkBytes ?? CHUNK_BYTES;
  if (!(chunkBytes > 0)) throw new RangeError('chunkBytes must be positive');
  const size = file.size;
  if (size < 8) throw new Error(`${name}: ${size} bytes is too short for a .safetensors file (it starts with 8)`);
  const n = lab.safetensorsHeaderLength(await bytes(file, 0, 8), size, name);
  const start = 8 + n;
  const header = await bytes(file, 0, start);
  const architecture = opts.architecture ?? lab.architectureOf?.(header, size, name) ?? 'gpt2';
  let described;
  try {
    described = describeArchitecture(architecture);
  } catch (e) {
    throw new Error(`${name}: ${e.message}`);
  }
  opts.onArchitecture?.(architecture);
  const loader = lab[described.loader]({
    header,
    fileSize: size,
    name,
    ...(opts.config ? { config: opts.config } : {}),
  });
  try {
    const expected = loader.expected;
    opts.onProgress?.({ received: 0, expected });
    for (let at = start; at < size; at += chunkBytes) {
      if (opts.cancelled?.()) throw new Error(`${name}: loading cancelled`);
      loader.append(await bytes(file, at, Math.min(size, at + chunkBytes)));
      opts.onProgress?.({ received: loader.received(), expected });
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
 * tokenizer.json (GPT-NeoX's vocabulary; GPT-2 reads its bundled ranks).
 * @param {{ name: string }[]} files
 * @returns {{ model: any, config: any|null, tokenizer: any|null }}
 */
export function pickFiles(files) {
  const list = Array.from(files ?? []);
  const isTokenizer = (f) => /(^|[\\/])tokenizer\.json$/i.test(f.name);
  const tokenizers = list.filter(isTokenizer);
  const json = list.filter((f) => /\.json$/i.test(f.name) && !isTokenizer(f));
  const models = list.filter((f) => !/\.json$/i.test(f.name));
  if (models.length !== 1) {
    throw new Error(
      models.length === 0
        ? 'pick a .safetensors checkpoint (a config.json alone is not a model)'
        : `pick one checkpoint, not ${models.length} (${models.map((f) => f.name).join(', ')})`,
    );
  }
  if (json.length > 1) throw new Error(`pick at most one config.json, not ${json.length}`);
  if (tokenizers.length > 1) throw new Error(`pick at most one tokenizer.json, not ${tokenizers.length}`);
  return { model: models[0], config: json[0] ?? null, tokenizer: tokenizers[0] ?? null };
}
