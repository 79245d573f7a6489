// Each architecture's runtime in this build: how a model's stored files become a model the
// view runs. The weights arrive as a Blob read from Cache Storage (a handle on disk): the
// runtime streams it into its wasm loader in pieces, exactly as a file picked from disk is.
// This table is the one place a new architecture plugs in.

/**
 * @typedef {{ compute: { request: Function }, channel: string, weights: Blob, config: string,
 *   texts: Record<string, string>, onProgress?: (p: any) => void }} RuntimeInput
 * @typedef {{ name: string, load: (input: RuntimeInput) => Promise<any> }} Runtime load resolves
 *   with the worker's { model, loadMs } (the gpt2Load job's result), or null when superseded
 */

/**
 * The worker's gpt2Load job, the streamed loader the local-file path uses, for either
 * architecture: it reads the cached Blob in pieces into the architecture's loader (config.json's
 * model_type decides) and keeps the model's tokenizer beside it.
 */
function loadInWorker({ compute, channel, weights, config, texts, onProgress }) {
  // File parts reference the cached Blob: nothing is copied here or on the way to the worker.
  const model = new File([weights], 'model.safetensors', { type: 'application/octet-stream' });
  const configFile = new File([config], 'config.json', { type: 'application/json' });
  const tokenizerText = texts?.['tokenizer.json'];
  const tokenizer =
    typeof tokenizerText === 'string'
      ? new File([tokenizerText], 'tokenizer.json', { type: 'application/json' })
      : null;
  return compute.request(channel, 'gpt2Load', { model, config: configFile, tokenizer }, { onProgress });
}

/** @type {Readonly<Record<import('./known-models.js').Architecture, Runtime | null>>} */
export const RUNTIMES = Object.freeze({
  gpt2: { name: 'GPT-2', load: loadInWorker },
  // Pythia: the same job; the worker reads tokenizer.json with @huggingface/tokenizers once.
  gpt_neox: { name: 'GPT-NeoX', load: loadInWorker },
  // The Llama family (SmolLM2): the same job, BF16 widened to F32 by the core as it streams in.
  llama: { name: 'Llama', load: loadInWorker },
});

/** Readable names of the architectures (for messages, also without a runtime). */
export const ARCHITECTURE_NAMES = Object.freeze({ gpt2: 'GPT-2', gpt_neox: 'GPT-NeoX', llama: 'Llama' });

/** The runtime of `architecture` in this build, or null. */
export const runtimeOf = (architecture) => RUNTIMES[architecture] ?? null;
