// The built wasm core's JS API for tests that run page code on it, loaded as the generators
// load it (scripts/load-wasm.mjs: Node needs the .wasm bytes passed in).
export { loadLab, loadLmLab, loadTrainLab } from '../../../scripts/load-wasm.mjs';
