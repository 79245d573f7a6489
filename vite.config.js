// The playground: a static Vite app in web/, built to dist/ with relative asset paths so the
// folder works from any host or subfolder. The worker imports the wasm build output through
// the '@poslab-wasm' alias (build/wasm/simd: poslab.mjs + poslab.wasm; '@poslab-wasm-relaxed' for
// its relaxed twin build/wasm/simd/relaxed; '@poslab-wasm-scalar' for build/wasm/scalar, which
// the benchmark worker times against it). index.html's CSP gets
// connect-src for the hub that public/poslab.config.json names (web/src/models/csp.js says why
// at build time and not at run time).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { CONFIG_FILE, parseHubConfig } from './web/src/models/config.js';
import { withHubCsp } from './web/src/models/csp.js';
import { benchIndexJson } from './web/src/bench/index-file.js';
import { INDEX_FILE } from './web/src/bench/results.js';
import { ISOLATION_HEADERS } from './web/src/worker/thread-plan.js';
import { EMBED_BUDGET_BYTES, embedLoad } from './web/src/embed/size-report.js';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** Rewrites the playground page's <meta> CSP so connect-src allows the configured hub. */
function hubCsp() {
  return {
    name: 'poslab-hub-csp',
    transformIndexHtml: {
      order: 'pre',
      handler(html, ctx) {
        if (!/(^|\/)index\.html$/.test(ctx.filename)) return html; // the embed page connects to no hub
        const path = here(`./public/${CONFIG_FILE}`);
        const { config, note } = parseHubConfig(fs.existsSync(path) ? fs.readFileSync(path, 'utf8') : null);
        if (note) console.warn(`poslab-hub-csp: ${note}`);
        return withHubCsp(html, config);
      },
    },
  };
}

/** Lists public/bench/*.json as bench/index.json: served in dev, emitted into dist/ at build. */
function benchIndex() {
  const dir = here('./public/bench');
  const text = () => benchIndexJson(fs.existsSync(dir) ? fs.readdirSync(dir) : []);
  return {
    name: 'poslab-bench-index',
    configureServer(server) {
      server.middlewares.use(`/bench/${INDEX_FILE}`, (_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.end(text());
      });
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: `bench/${INDEX_FILE}`, source: text() });
    },
  };
}

/** Prints, after each build, what embed.html loads for its default plot, gzipped, against the budget. */
function embedSize() {
  return {
    name: 'poslab-embed-size',
    apply: 'build',
    writeBundle(_options, bundle) {
      const { files, total } = embedLoad(bundle, {
        entry: 'embed',
        page: 'embed.html',
        view: /\/views\/encodings\.js$/,
        worker: /compute\.worker-[^/]*\.js$/,
        wasm: /(^|\/)poslab-[\w-]{8}\.wasm$/,
      });
      const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
      const by = (re) => files.filter((f) => re.test(f.file)).reduce((sum, f) => sum + f.gzip, 0);
      const verdict = total <= EMBED_BUDGET_BYTES ? 'within' : 'OVER';
      console.log(
        `embed.html (plot=encodings.table) loads ${kb(total)} gzipped in ${files.length} files ` +
          `(wasm ${kb(by(/\.wasm$/))}, worker ${kb(by(/worker/))}, page JS ${kb(by(/^(?!.*worker).*\.js$/))}, ` +
          `CSS + HTML ${kb(by(/\.(css|html)$/))}): ${verdict} the ${kb(EMBED_BUDGET_BYTES)} budget`,
      );
    },
  };
}

/**
 * The threaded language-model build (build/wasm/threads), served as is at wasm-threads/: its
 * glue loads its pthread worker script from beside itself, so it is copied, not bundled.
 */
function threadedLm() {
  const dir = here('./build/wasm/threads');
  // relaxed/: its relaxed twin, which web/src/worker/lm-module.js loads where the engine has relaxed SIMD.
  const build = ['poslab-lm.mjs', 'poslab-lm.worker.js', 'poslab-lm.wasm'];
  const files = [...build, ...build.map((f) => `relaxed/${f}`)];
  const types = { mjs: 'text/javascript', js: 'text/javascript', wasm: 'application/wasm' };
  return {
    name: 'poslab-threaded-lm',
    configureServer(server) {
      server.middlewares.use('/wasm-threads', (req, res, next) => {
        const file = files.find((f) => req.url === `/${f}`);
        if (!file || !fs.existsSync(`${dir}/${file}`)) return next();
        res.setHeader('Content-Type', types[file.split('.').pop()]);
        res.end(fs.readFileSync(`${dir}/${file}`));
      });
    },
    generateBundle() {
      // Without the build (a machine that built only the single-threaded modules) the page
      // falls back to one thread and says so (web/src/worker/lm-module.js).
      if (!fs.existsSync(`${dir}/${files[0]}`))
        return this.warn(`no threaded build in ${dir}: models run on one thread`);
      for (const file of files) {
        this.emitFile({ type: 'asset', fileName: `wasm-threads/${file}`, source: fs.readFileSync(`${dir}/${file}`) });
      }
    },
  };
}

export default defineConfig({
  root: 'web',
  publicDir: '../public',
  base: './',
  plugins: [hubCsp(), benchIndex(), embedSize(), threadedLm()],
  resolve: {
    // The scalar build serves only the Benchmarks view's "Run on this machine" (its baseline).
    // '@poslab-wasm-relaxed': the SIMD build's relaxed twin (f32x4.relaxed_madd), which the
    // workers load where the engine has relaxed SIMD (web/src/core/simd-build.js).
    alias: {
      '@poslab-wasm': here('./build/wasm/simd'),
      '@poslab-wasm-relaxed': here('./build/wasm/simd/relaxed'),
      '@poslab-wasm-scalar': here('./build/wasm/scalar'),
    },
  },
  // ES module workers: the worker imports the wasm module's ES build.
  worker: { format: 'es' },
  build: {
    // POSLAB_DIST (relative to the repo root) lets two builds run side by side without sharing dist/.
    outDir: `../${process.env.POSLAB_DIST ?? 'dist'}`,
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
    // Cross-origin isolation lets the language-model module run threaded (docs/playground.md).
    headers: ISOLATION_HEADERS,
  },
  preview: { headers: ISOLATION_HEADERS },
});
