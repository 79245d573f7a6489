// The npm package: packed, installed into a scratch app, used from Node and from a Vite build
// in Debian's Chromium.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['tests/npm/**/*.test.js'],
    environment: 'node',
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
