// Unit tests of the playground's pure parts (URL state, colour maps, exports, compute glue)
// in Node. The glue tests load the built wasm core the way tests/wasm does.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['tests/web/**/*.test.js'],
    environment: 'node',
    testTimeout: 60_000,
  },
});
