// Entry point of the PosLab JavaScript API: createPosLab finds and instantiates a wasm build
// (load.js) and binds the API to it (api.js). A bundler that provides the module itself can
// import bindPosLab from api.js and skip load.js. Declarations and docs: poslab.d.ts.
import { bindPosLab } from './api.js';
import { PosLabError } from './errors.js';
import { bindGpt2 } from './gpt2.js';
import { bindLm } from './lm.js';
import { loadModule } from './load.js';
import * as check from './validate.js';

export { bindGpt2, bindLm, bindPosLab, PosLabError };

/**
 * Loads one build variant and returns the API bound to it.
 * @param {{ variant?: 'simd'|'relaxed'|'scalar', wasmBinary?: Uint8Array|ArrayBuffer, factory?: Function }} [config]
 */
export async function createPosLab(config = {}) {
  check.options(config, 'createPosLab', ['variant', 'wasmBinary', 'factory']);
  return bindPosLab(await loadModule(config));
}

/**
 * Loads the language-model module (build/wasm/VARIANT/poslab-lm.wasm) and returns its API:
 * GPT-2's (gpt2.d.ts) and GPT-NeoX's (gpt-neox.d.ts).
 * @param {{ variant?: 'simd'|'relaxed'|'scalar', wasmBinary?: Uint8Array|ArrayBuffer, factory?: Function }} [config]
 */
export async function createGpt2Lab(config = {}) {
  check.options(config, 'createGpt2Lab', ['variant', 'wasmBinary', 'factory']);
  return bindLm(await loadModule(config, 'poslab-lm'));
}
export { bindTrain, createTrainLab } from './train.js';
