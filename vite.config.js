// The playground: a static Vite app in web/, built to dist/ with relative asset paths so the
// folder works from any host or subfolder. The worker imports the wasm build output through
// the '@poslab-wasm' alias (build/wasm/simd: poslab.mjs + poslab.wasm).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: 'web',
  publicDir: '../public',
  base: './',
  resolve: {
    alias: { '@poslab-wasm': here('./build/wasm/simd') },
  },
  // ES module workers: the worker imports the wasm module's ES build.
  worker: { format: 'es' },
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      // The playground, the embed page, and <poslab-figure>'s script under a stable name
      // (host pages link to it) next to index.html.
      input: {
        main: here('./web/index.html'),
        embed: here('./web/embed.html'),
        'poslab-figure': here('./web/poslab-figure.js'),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'poslab-figure' ? 'poslab-figure.js' : 'assets/[name]-[hash].js'),
      },
    },
  },
  server: {
    // The wasm build lives outside web/; let the dev server read it.
    fs: { allow: [here('.')] },
  },
});
