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

/** GPT-2: the worker's gpt2Load job, the streamed loader the local-file path uses. */
function loadGpt2({ compute, channel, weights, config, onProgress }) {
  // File parts reference the cached Blob: nothing is copied here or on the way to the worker.
  const model = new File([weights], 'model.safetensors', { type: 'application/octet-stream' });
  const configFile = new File([config], 'config.json', { type: 'application/json' });
  return compute.request(channel, 'gpt2Load', { model, config: configFile }, { onProgress });
}

/** @type {Readonly<Record<import('./known-models.js').Architecture, Runtime | null>>} */
export const RUNTIMES = Object.freeze({
  gpt2: { name: 'GPT-2', load: loadGpt2 },
  // ▶ GPT-NeoX (Pythia) plugs in here. Once the language-model module exposes a streamed NeoX
  // loader, add { name: 'GPT-NeoX', load } whose load sends the Blob, config.json's text and
  // texts['tokenizer.json'] to a worker job that reads the Blob in pieces into that loader
  // (as jobs/gpt2.js's gpt2Load does with lab.gpt2Loader) and tokenizes with
  // loadTokenizerOf('tokenizer-json', texts). Until then the view downloads and stores the
  // model and says this build cannot run it.
  gpt_neox: null,
});

/** Readable names of the architectures (for messages, also without a runtime). */
export const ARCHITECTURE_NAMES = Object.freeze({ gpt2: 'GPT-2', gpt_neox: 'GPT-NeoX' });

/** The runtime of `architecture` in this build, or null. */
export const runtimeOf = (architecture) => RUNTIMES[architecture] ?? null;
