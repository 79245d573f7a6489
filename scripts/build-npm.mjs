// `npm run build:npm`: assembles the npm package `poslab` under build/npm and packs it there
// (build/npm/poslab-VERSION.tgz); the repository's own package.json stays private.
//
// The package is the playground's source, not a bundle, so a bundler (Vite) builds it into the
// app that installs it:
//   poslab         the JS API (src/core: createPosLab, createGpt2Lab, createTrainLab + .d.ts);
//                  in Node it reads its own .wasm, in a bundled app the bundler emits it;
//   poslab/figure  definePoslabFigure(), the <poslab-figure> element (src/embed; figure.d.ts),
//                  which uses Vite's worker and inline-CSS imports;
//   wasm/{simd,simd/relaxed,scalar}/  the builds of the three wasm modules.
// The build-folder paths of the repository (the '@poslab-wasm' aliases, load.js's
// '../../../build/wasm') become paths inside the package; any left over fails the build.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const out = path.join(root, 'build/npm');
const repo = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

// Build-time helpers of the repository that read Node modules: not part of the package.
const LEFT_OUT = new Set(['embed/size-report.js']);
const MODULES = ['poslab', 'poslab-lm', 'poslab-train'];

function fail(message) {
  console.error(`build-npm: ${message}`);
  process.exit(1);
}

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

// The wasm builds (the SIMD build's relaxed twin in simd/relaxed), each module's ES glue and binary.
for (const variant of ['simd', 'simd/relaxed', 'scalar'])
  for (const module of MODULES)
    for (const ext of ['mjs', 'wasm']) {
      const from = path.join(root, 'build/wasm', variant, `${module}.${ext}`);
      if (!fs.existsSync(from)) fail(`${path.relative(root, from)} is missing: run npm run build:wasm first`);
      fs.mkdirSync(path.join(out, 'wasm', variant), { recursive: true });
      fs.copyFileSync(from, path.join(out, 'wasm', variant, `${module}.${ext}`));
    }

// The sources, with the repository's wasm paths rewritten to the package's.
const srcDir = path.join(root, 'web/src');
const bare = new Set();
for (const rel of fs.readdirSync(srcDir, { recursive: true })) {
  const from = path.join(srcDir, rel);
  if (fs.statSync(from).isDirectory() || LEFT_OUT.has(rel)) continue;
  const to = path.join(out, 'src', rel);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  if (!rel.endsWith('.js')) {
    fs.copyFileSync(from, to);
    continue;
  }
  const wasmDir = path.relative(path.dirname(to), path.join(out, 'wasm'));
  let text = fs
    .readFileSync(from, 'utf8')
    .replaceAll("'@poslab-wasm-scalar/", `'${wasmDir}/scalar/`)
    .replaceAll("'@poslab-wasm-relaxed/", `'${wasmDir}/simd/relaxed/`)
    .replaceAll("'@poslab-wasm/", `'${wasmDir}/simd/`)
    .replaceAll("'../../../build/wasm", `'${wasmDir}`);
  if (/@poslab-wasm|build\/wasm\//.test(text.replace(/^\s*(\/\/|\*).*$/gm, '')))
    fail(`${rel} still names a repository path`);
  for (const [, spec] of text.matchAll(/(?:from |import\()'([^./'][^']*)'/g))
    if (!spec.startsWith('node:'))
      bare.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
  fs.writeFileSync(to, text);
}

// Every package the sources import, at the version the repository pins.
const dependencies = {};
for (const name of [...bare].sort()) {
  const version = repo.devDependencies?.[name] ?? repo.dependencies?.[name];
  if (!version) fail(`the sources import ${name}, which the repository's package.json does not pin`);
  dependencies[name] = version;
}

fs.writeFileSync(
  path.join(out, 'figure.js'),
  `// <poslab-figure> for apps that bundle PosLab from npm (see README.md).
export { definePoslabFigure } from './src/embed/element.js';
`,
);
fs.writeFileSync(
  path.join(out, 'figure.d.ts'),
  `/**
 * Defines the <poslab-figure> element once (a second call does nothing).
 * @param appBase where the figure's "Open in PosLab" link goes (a hosted playground); omitted: no link
 */
export function definePoslabFigure(appBase?: string | URL): void;
`,
);

const manifest = {
  name: 'poslab',
  version: repo.version,
  description: repo.description,
  type: 'module',
  engines: repo.engines,
  exports: {
    '.': { types: './src/core/poslab.d.ts', default: './src/core/poslab.js' },
    './figure': { types: './figure.d.ts', default: './figure.js' },
    './wasm/*': './wasm/*',
  },
  files: ['src', 'wasm', 'figure.js', 'figure.d.ts', 'README.md', 'LICENSE'],
  sideEffects: ['./figure.js', '*.css'],
  dependencies,
};
fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
fs.copyFileSync(path.join(root, 'scripts/npm-readme.md'), path.join(out, 'README.md'));
// The repository has no LICENSE file yet; the package carries one as soon as it does.
if (fs.existsSync(path.join(root, 'LICENSE'))) fs.copyFileSync(path.join(root, 'LICENSE'), path.join(out, 'LICENSE'));

const tarball = execFileSync('npm', ['pack', '--silent'], { cwd: out, encoding: 'utf8' }).trim().split('\n').at(-1);
const size = fs.statSync(path.join(out, tarball)).size;
console.log(
  `build/npm/${tarball}: ${(size / 1e6).toFixed(1)} MB, dependencies ${Object.keys(dependencies).join(', ')}`,
);
