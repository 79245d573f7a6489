// Finds and instantiates the Emscripten module of one build variant: `poslab` (the core),
// `poslab-lm` (the language models) or `poslab-train` (the lab's trainer), each its own
// module so its code does not weigh on the others. The static
// import paths let both Node and Vite see the build outputs (Vite splits each into its own
// chunk, loaded only when asked for). A caller may instead pass its own `factory`.
// scripts/build-npm.mjs rewrites the repository's build folder (build/wasm, three folders up)
// to the npm package's (wasm/, two up) in both the imports and WASM_DIR.
import { PosLabError } from './errors.js';

/** The folder of the wasm builds, relative to this file. */
const WASM_DIR = '../../../build/wasm';

// 'relaxed' is the SIMD build's relaxed twin (its GEMM and attention products on
// f32x4.relaxed_madd: core/simd-build.js says which engines run it), in the SIMD build's folder.
const builds = {
  poslab: {
    simd: () => import('../../../build/wasm/simd/poslab.mjs'),
    relaxed: () => import('../../../build/wasm/simd/relaxed/poslab.mjs'),
    scalar: () => import('../../../build/wasm/scalar/poslab.mjs'),
  },
  'poslab-lm': {
    simd: () => import('../../../build/wasm/simd/poslab-lm.mjs'),
    relaxed: () => import('../../../build/wasm/simd/relaxed/poslab-lm.mjs'),
    scalar: () => import('../../../build/wasm/scalar/poslab-lm.mjs'),
  },
  'poslab-train': {
    simd: () => import('../../../build/wasm/simd/poslab-train.mjs'),
    relaxed: () => import('../../../build/wasm/simd/relaxed/poslab-train.mjs'),
    scalar: () => import('../../../build/wasm/scalar/poslab-train.mjs'),
  },
};

/** Each variant's folder under WASM_DIR. */
export const VARIANT_DIRS = { simd: 'simd', relaxed: 'simd/relaxed', scalar: 'scalar' };

// One hint for both homes of this file: the repository (build it) and the npm package (whose
// files were packed beside it, so a missing one means a broken install).
const missing = (variant, where = '') =>
  `the ${variant} wasm build is missing${where}: run \`npm run build:wasm\` in the repository, or reinstall the poslab package`;

const inNode = typeof process === 'object' && typeof process.versions?.node === 'string';

/** Resolves to the raw embind module ({ sinusoidal, rope, ... } as bound in cpp/wasm). */
export async function loadModule({ variant = 'simd', wasmBinary, factory } = {}, module = 'poslab') {
  if (!factory && !Object.hasOwn(builds[module], variant)) {
    throw new PosLabError(`unknown variant '${variant}' (expected simd, relaxed or scalar)`);
  }
  if (wasmBinary !== undefined && !(wasmBinary instanceof Uint8Array || wasmBinary instanceof ArrayBuffer)) {
    throw new PosLabError('wasmBinary must be a Uint8Array or an ArrayBuffer');
  }
  // Emscripten 3.1.6 fetches the .wasm by URL, which Node's fetch cannot do for files: in
  // Node the bytes are read from the file beside the module.
  if (inNode && wasmBinary === undefined && !factory) wasmBinary = await readBuild(variant, module);
  let create = factory;
  if (!create) {
    try {
      create = (await builds[module][variant]()).default;
    } catch (cause) {
      throw new PosLabError(missing(variant), { cause });
    }
  }
  return create(wasmBinary === undefined ? {} : { wasmBinary });
}

async function readBuild(variant, module) {
  // Neither specifier is a literal, so a bundler neither follows fs into a browser build nor
  // copies every .wasm for this Node-only path.
  const fsModule = 'node:fs/promises';
  const file = [WASM_DIR, VARIANT_DIRS[variant], `${module}.wasm`].join('/');
  const { readFile } = await import(/* @vite-ignore */ fsModule);
  try {
    return await readFile(new URL(file, import.meta.url));
  } catch (cause) {
    throw new PosLabError(missing(variant, ` (${file})`), { cause });
  }
}
