// End-to-end tests: the built playground in Debian's Chromium, driven by playwright-core.
// global-setup.js builds dist/ and serves it on a local port for the run.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['tests/e2e/**/*.test.js'],
    globalSetup: ['tests/e2e/global-setup.js'],
    environment: 'node',
    fileParallelism: false, // one browser at a time on a 2-core machine
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
