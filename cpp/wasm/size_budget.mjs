// Post-build step of a wasm module: prints the gzipped size of NAME.mjs + NAME.wasm and fails
// the build when the pair is over the download budget of issue 3 (300 KB gzipped).
// Usage: node size_budget.mjs BUILD_DIR NAME
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET = 300 * 1000;
const [dir, name] = process.argv.slice(2);
const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;

let total = 0;
const parts = [`${name}.mjs`, `${name}.wasm`].map((file) => {
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
