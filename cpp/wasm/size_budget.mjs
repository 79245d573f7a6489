// Post-build step of the wasm module: prints the gzipped size of poslab.mjs + poslab.wasm and
// fails the build when the pair is over the download budget of issue 3 (300 KB gzipped).
// Usage: node size_budget.mjs BUILD_DIR
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET = 300 * 1000;
const dir = process.argv[2];
const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;

let total = 0;
const parts = ['poslab.mjs', 'poslab.wasm'].map((name) => {
  const bytes = readFileSync(path.join(dir, name));
  const gz = gzipSync(bytes, { level: 9 }).length;
  total += gz;
  return `${name} ${kb(bytes.length)} (${kb(gz)} gzipped)`;
});
const verdict = total <= BUDGET ? 'within' : 'OVER';
console.log(
  `poslab wasm [${path.basename(dir)}]: ${parts.join(' + ')} = ${kb(total)} gzipped, ${verdict} the ${kb(BUDGET)} budget`,
);
if (total > BUDGET) process.exit(1);
