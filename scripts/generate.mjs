// Every generated file of the repository, written by one command: `npm run generate`. With
// `--check` (`npm run generate -- --check`, a stage of scripts/test.sh after the wasm build) it
// writes nothing and fails, naming each committed file that differs from what its generator
// would write now and how to regenerate it.
//
// Adding a generator is one entry in GENERATORS below: `file`, the path it writes (from the
// repository root); `generator`, its module under scripts/generators/, whose default export
// returns the file's text (or a promise of it) and writes nothing; `from`, what it reads, said
// when the file is stale. A generator imports nothing from tests/ and nothing that it or another
// generator writes; a generator that reads the core loads the built wasm through
// scripts/load-wasm.mjs (so run `npm run build:wasm` first when the C++ changed). Each text is
// formatted here with the repository's prettier config, so `npm run format` leaves it as is.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const GENERATORS = [
  {
    file: 'web/src/state/position-methods.js',
    generator: './generators/position-methods.mjs',
    from: "the built core's table of position methods (build/wasm/simd/poslab.wasm)",
  },
  {
    file: 'web/src/plots/colormap-luts.js',
    generator: './generators/colormap-luts.mjs',
    from: 'd3-scale-chromatic and state/colormaps.js',
  },
  {
    file: 'web/src/state/train-defaults.js',
    generator: './generators/train-defaults.mjs',
    from: "the built trainer's defaults table (build/wasm/simd/poslab-train.wasm)",
  },
  {
    file: 'web/src/state/model-types.js',
    generator: './generators/model-types.mjs',
    from: "the built language-model module's model-type table (build/wasm/simd/poslab-lm.wasm)",
  },
  {
    file: 'docs/claims.md',
    generator: './generators/claims.mjs',
    from: 'the claims rows (web/src/content/claims.js)',
  },
];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== '--check');
if (unknown.length) {
  console.error(`usage: npm run generate [-- --check] (unknown argument ${unknown.join(' ')})`);
  process.exit(2);
}
const check = args.includes('--check');

/** The text `entry`'s generator writes, formatted as prettier would format the file. */
async function generated(entry) {
  const { default: generate } = await import(entry.generator);
  const out = path.join(root, entry.file);
  const options = { ...(await prettier.resolveConfig(out)), filepath: out };
  return prettier.format(await generate(), options);
}

/** 1-based number of the first line where `a` and `b` differ. */
function firstDifference(a, b) {
  const [x, y] = [a.split('\n'), b.split('\n')];
  let i = 0;
  while (i < x.length && x[i] === y[i]) i++;
  return i + 1;
}

let problems = 0;
for (const entry of GENERATORS) {
  const script = `scripts/${entry.generator.replace('./', '')}`;
  let text;
  try {
    text = await generated(entry);
  } catch (err) {
    console.error(`${entry.file}: ${script} failed: ${err.message}`);
    problems++;
    continue;
  }
  const out = path.join(root, entry.file);
  const committed = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : null;
  if (!check) {
    if (committed !== text) fs.writeFileSync(out, text);
    console.log(`${committed === text ? 'unchanged' : 'wrote'} ${entry.file}`);
  } else if (committed === null) {
    console.error(`${entry.file} is missing: ${script} generates it from ${entry.from}`);
    problems++;
  } else if (committed !== text) {
    const line = firstDifference(committed, text);
    console.error(`${entry.file} is stale (from line ${line}): ${script} now writes otherwise from ${entry.from}`);
    problems++;
  } else {
    console.log(`up to date: ${entry.file}`);
  }
}
if (problems) {
  console.error(
    check
      ? `${problems} generated file(s) stale or not generated: run \`npm run generate\` (after \`npm run build:wasm\` if the C++ changed) and commit the result`
      : `${problems} generator(s) failed`,
  );
  process.exit(1);
}
