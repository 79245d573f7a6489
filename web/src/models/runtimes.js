// Each architecture's runtime in this build: how a model's stored files become a model the
// view runs. The weights arrive as a Blob read from Cache Storage (a handle on disk): the
// runtime streams it into its wasm loader in pieces, exactly as a file picked from disk is.
// An architecture the Models view describes (lm/architectures.js) has its runtime here.

import { ARCHITECTURES, architecture } from '../lm/architectures.js';
import { INDEX_FILE } from './shards.js';

/**
 * @typedef {{ compute: { request: Function }, channel: string, weights: Blob | null,
 *   shards?: { index: string, files: { name: string, blob: Blob }[] } | null, config: string,
 *   texts: Record<string, string>, onProgress?: (p: any) => void }} RuntimeInput weights, or
 *   the shards and their index's text (obtain.js)
 * @typedef {{ name: string, load: (input: RuntimeInput) => Promise<any> }} Runtime load resolves
 *   with the worker's { model, loadMs } (the lmLoad job's result), or null when superseded
 */

/**
 * The worker's lmLoad job, the streamed loader the local-file path uses, for either
 * architecture: it reads the cached Blob in pieces into the architecture's loader (config.json's
 * model_type decides) and keeps the model's tokenizer beside it.
 */
function loadInWorker({ compute, channel, weights, shards, config, texts, onProgress }) {
  // File parts reference the cached Blobs: nothing is copied here or on the way to the worker.
  const binary = (blob, name) => new File([blob], name, { type: 'application/octet-stream' });
  const checkpoint = shards
    ? {
        model: null,
        index: new File([shards.index], INDEX_FILE, { type: 'application/json' }),
        shards: shards.files.map((f) => binary(f.blob, f.name)),
      }
    : { model: binary(weights, 'model.safetensors') };
  const configFile = new File([config], 'config.json', { type: 'application/json' });
  const tokenizerText = texts?.['tokenizer.json'];
  const tokenizer =
    typeof tokenizerText === 'string'
      ? new File([tokenizerText], 'tokenizer.json', { type: 'application/json' })
      : null;
  return compute.request(channel, 'lmLoad', { ...checkpoint, config: configFile, tokenizer }, { onProgress });
}

/**
 * Every architecture the Models view runs loads through the same job: the worker picks the
 * architecture's loader from config.json's model_type (architectures.js). Pythia's and the
 * Llama family's tokenizer.json is read with @huggingface/tokenizers once; their BF16 weights
 * stay BF16 in memory, widened a panel at a time.
 * @type {Readonly<Record<import('./known-models.js').Architecture, Runtime | null>>}
 */
export const RUNTIMES = Object.freeze(
  Object.fromEntries(ARCHITECTURES.map((a) => [a, { name: architecture(a).name, load: loadInWorker }])),
);

/** The runtime of `architecture` in this build, or null. */
export const runtimeOf = (architecture) => RUNTIMES[architecture] ?? null;
