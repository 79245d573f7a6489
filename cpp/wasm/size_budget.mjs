// Post-build step of a wasm module: prints the gzipped size of NAME.mjs + NAME.wasm (+ the
// threaded build's NAME.worker.js, which a page downloads too) and fails the build when they
// are over the download budget of issue 3 (300 KB gzipped), or the KB given as a third argument.
// Usage: node size_budget.mjs BUILD_DIR NAME [BUDGET_KB]
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const [dir, name, budgetKb = '300'] = process.argv.slice(2);
const BUDGET = Number(budgetKb) * 1000;
const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;

let total = 0;
const files = [`${name}.mjs`, `${name}.wasm`, `${name}.worker.js`].filter((f) => existsSync(path.join(dir, f)));
const parts = files.map((file) => {
  const bytes = readFileSync(path.join(dir, file));
  const gz = gzipSync(bytes, { level: 9 }).length;
  total += gz;
  return `${file} ${kb(bytes.length)} (${kb(gz)} gzipped)`;
});
const verdict = total <= BUDGET ? 'within' : 'OVER';
console.log(
  `${name} wasm [${path.basename(dir)}]: ${parts.join(' + ')} = ${kb(total)} gzipped, ${verdict} the ${kb(BUDGET)} budget`,
);
if (total > BUDGET) process.exit(1);
