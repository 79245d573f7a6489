// What embed.html loads for one plot, read off the finished bundle at build time: the page,
// its entry's static imports and their CSS, the plot's view chunk and its imports, the
// compute worker and the wasm it loads (the larger of the two builds it names). vite.config.js prints the gzipped total
// against the budget; the e2e test measures the same path in Chromium.
import zlib from 'node:zlib';

/** The embed's budget: everything embed.html loads, wasm included, gzipped. */
export const EMBED_BUDGET_BYTES = 200 * 1000;

const bytesOf = (item) => (item.type === 'chunk' ? item.code : item.source);
const gzipSize = (item) => zlib.gzipSync(bytesOf(item), { level: 9 }).length;

/**
 * @param {Record<string, any>} bundle rollup's output bundle (fileName → chunk or asset)
 * @param {{ entry: string, page: string, view: RegExp, worker: RegExp, wasm: RegExp }} o entry
 *   chunk name, the page's file, the view module's id pattern, the worker file's pattern, and
 *   the pattern of the wasm module the plot needs (the worker also names the language models',
 *   loaded only by their views)
 * @returns {{ files: { file: string, gzip: number }[], total: number }}
 */
export function embedLoad(bundle, { entry, page, view, worker, wasm }) {
  const items = Object.values(bundle);
  const files = new Set();
  const add = (fileName) => {
    if (files.has(fileName) || !bundle[fileName]) return;
    files.add(fileName);
    const item = bundle[fileName];
    if (item.type !== 'chunk') return;
    for (const css of item.viteMetadata?.importedCss ?? []) files.add(css);
    // Only code: a chunk's imports may also list the assets it can reference without loading.
    for (const dep of item.imports) if (bundle[dep]?.type === 'chunk') add(dep);
  };
  const start = items.find((c) => c.type === 'chunk' && c.isEntry && c.name === entry);
  if (!start) throw new Error(`no entry chunk named ${entry}`);
  add(page);
  add(start.fileName);
  const viewChunk = items.find((c) => c.type === 'chunk' && view.test(c.facadeModuleId ?? ''));
  if (viewChunk) add(viewChunk.fileName);
  const workerFile = items.find((c) => worker.test(c.fileName));
  if (workerFile) {
    add(workerFile.fileName);
    // The worker names its wasm by its emitted file name: the SIMD build's and its relaxed twin's,
    // of which it loads one (worker/core-wasm.js), so the larger counts.
    const text = String(bytesOf(workerFile));
    const named = items.filter((item) => wasm.test(item.fileName) && text.includes(baseName(item.fileName)));
    const largest = named.sort((a, b) => gzipSize(b) - gzipSize(a))[0];
    if (largest) add(largest.fileName);
  }
  const rows = [...files].map((file) => ({ file, gzip: gzipSize(bundle[file]) }));
  return { files: rows, total: rows.reduce((s, r) => s + r.gzip, 0) };
}

const baseName = (f) => f.slice(f.lastIndexOf('/') + 1);
