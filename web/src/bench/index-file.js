// The index of public/bench/: which results files the Benchmarks view loads. Written by the
// build (vite.config.js's benchIndex plugin: emitted into dist/bench/, served by the dev server).
import { INDEX_FILE } from './results.js';

/** Sorted results file names among `names` (a directory listing). */
export function benchIndexFiles(names) {
  return names.filter((n) => /^[\w.-]+\.json$/.test(n) && n !== INDEX_FILE).sort();
}

/** The index file's text for a directory listing. */
export function benchIndexJson(names) {
  return `${JSON.stringify({ schema: 'poslab-bench-index/1', files: benchIndexFiles(names) }, null, 1)}\n`;
}
