// vitest runs the JS API tests on the built wasm modules in Node (tests/wasm). Loading and
// compiling a module takes a moment, and the heap-stability test makes 10 000 calls.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/wasm/**/*.test.js'],
    environment: 'node',
    // Relaxed SIMD on in every test process, for the relaxed variant (tests/wasm/helpers/paths.js).
    setupFiles: ['tests/wasm/setup/relaxed-simd.js'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
