// Finds and instantiates the Emscripten module of one build variant: `poslab` (the core),
// `poslab-gpt2` (the language models) or `poslab-train` (the lab's trainer), each its own
// module so its code does not weigh on the others. The static
// import paths let both Node and Vite see the build outputs (Vite splits each into its own
// chunk, loaded only when asked for). A caller may instead pass its own `factory`.
import { PosLabError } from './errors.js';

const builds = {
  poslab: {
    simd: () => import('../../../build/wasm/simd/poslab.mjs'),
    scalar: () => import('../../../build/wasm/scalar/poslab.mjs'),
  },
  'poslab-gpt2': {
    simd: () => import('../../../build/wasm/simd/poslab-gpt2.mjs'),
    scalar: () => import('../../../build/wasm/scalar/poslab-gpt2.mjs'),
  },
  'poslab-train': {
    simd: () => import('../../../build/wasm/simd/poslab-train.mjs'),
    scalar: () => import('../../../build/wasm/scalar/poslab-train.mjs'),
  },
};

const inNode = typeof process === 'object' && typeof process.versions?.node === 'string';

/** Resolves to the raw embind module ({ sinusoidal, rope, ... } as bound in cpp/wasm). */
export async function loadModule({ variant = 'simd', wasmBinary, factory } = {}, module = 'poslab') {
  if (!factory && !Object.hasOwn(builds[module], variant)) {
    throw new PosLabError(`unknown variant '${variant}' (expected simd or scalar)`);
  }
  if (wasmBinary !== undefined && !(wasmBinary instanceof Uint8Array || wasmBinary instanceof ArrayBuffer)) {
    throw new PosLabError('wasmBinary must be a Uint8Array or an ArrayBuffer');
  }
  // Emscripten 3.1.6 fetches the .wasm by URL, which Node's fetch cannot do for files.
  if (inNode && wasmBinary === undefined && !factory) {
    throw new PosLabError(
      `in Node, pass wasmBinary (the bytes of build/wasm/${variant}/${module}.wasm, e.g. from fs.readFileSync)`,
    );
  }
  let create = factory;
  if (!create) {
    try {
      create = (await builds[module][variant]()).default;
    } catch (cause) {
      throw new PosLabError(`the ${variant} wasm build is missing: run \`npm run build:wasm\``, { cause });
    }
  }
  return create(wasmBinary === undefined ? {} : { wasmBinary });
}
