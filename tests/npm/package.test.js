// `poslab` from npm: scripts/build-npm.mjs packs build/npm; the tarball is installed into a
// scratch app (build/npm-app) the way a user would (`npm install <tarball>`, dependencies from
// the npm cache the repository's install filled, else the registry); the app imports the
// package in Node (no wasmBinary: the package reads its own .wasm), and is built with Vite, and
// served by `vite dev`, and opened in Chromium, where it computes a table and shows a
// <poslab-figure>.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from '../e2e/helpers/browser.js';
import { serveSite } from '../e2e/helpers/static-site.mjs';

const root = new URL('../..', import.meta.url).pathname;
const app = path.join(root, 'build/npm-app');
const vite = path.join(root, 'node_modules/vite/bin/vite.js');
const run = (cmd, args, cwd = root) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: 'pipe' });

// sin(1), cos(1), … of the table's position 1, in float32: what every build must give.
const expectedRow1 = [Math.sin(1), Math.cos(1), Math.sin(1 / 100), Math.cos(1 / 100)].map(Math.fround);

const FILES = {
  'package.json': JSON.stringify({ name: 'poslab-npm-app', private: true, type: 'module' }),
  // A plain object: the app has no Vite of its own (the repository's builds and serves it).
  // What docs/wasm-api.md tells an app to set: ES workers (the compute worker is split into chunks)
  // and, for `vite dev`, no pre-bundling of poslab (it would move the modules from their .wasm).
  'vite.config.js': `export default {
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['poslab'] },
  build: { target: 'es2022' },
};
`,
  // Both builds of the core, and the two other modules loaded (each reads its own .wasm).
  'node-check.mjs': `import { createGpt2Lab, createPosLab, createTrainLab } from 'poslab';
const row1 = async (variant) => {
  const t = (await createPosLab({ variant })).sinusoidal({ length: 2, dim: 4 });
  return { shape: t.shape, row1: Array.from(t.data.subarray(4, 8)) };
};
console.log(JSON.stringify({
  simd: await row1('simd'),
  scalar: await row1('scalar'),
  gpt2: typeof (await createGpt2Lab()).architectureOfConfig,
  train: typeof (await createTrainLab({ variant: 'scalar' })).createRun,
}));
`,
  'index.html': `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>An app with PosLab from npm</title><link rel="icon" href="data:,">
<script type="module" src="./main.js"></script></head>
<body><poslab-figure id="figure" plot="encodings.table" method="rope" len="48" dim="32"></poslab-figure></body></html>
`,
  'main.js': `import { createPosLab } from 'poslab';
import { definePoslabFigure } from 'poslab/figure';

definePoslabFigure();
const lab = await createPosLab();
document.body.dataset.row1 = JSON.stringify(Array.from(lab.sinusoidal({ length: 2, dim: 4 }).data.subarray(4, 8)));
`,
};

// The names a .d.ts exports: its own declarations and what it re-exports from its neighbours.
function declaredNames(file) {
  const text = fs.readFileSync(file, 'utf8');
  const names = [...text.matchAll(/^export (?:declare )?(?:function|class|const|interface|type) (\w+)/gm)].map(
    (m) => m[1],
  );
  for (const [, list, from] of text.matchAll(/^export \{([^}]*)\} from '([^']+)'/gm)) {
    const declared = declaredNames(path.resolve(path.dirname(file), `${from}.d.ts`));
    for (const name of list.split(',').map((n) => n.trim())) if (declared.includes(name)) names.push(name);
  }
  return names;
}

let tarball;
beforeAll(() => {
  const packed = run('node', ['scripts/build-npm.mjs']);
  tarball = path.join(root, /build\/npm\/(\S+\.tgz)/.exec(packed)[0]);
  fs.rmSync(app, { recursive: true, force: true });
  fs.mkdirSync(app, { recursive: true });
  for (const [name, text] of Object.entries(FILES)) fs.writeFileSync(path.join(app, name), text);
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], app);
});

describe('npm package', () => {
  it('Npm.PackageHoldsTheApiTypesBothBuildsAndTheElement', () => {
    const pkg = path.join(app, 'node_modules/poslab');
    const manifest = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'));
    expect(manifest.exports['.']).toEqual({ types: './src/core/poslab.d.ts', default: './src/core/poslab.js' });
    expect(manifest.exports['./figure']).toEqual({ types: './figure.d.ts', default: './figure.js' });
    for (const file of ['src/core/poslab.d.ts', 'figure.js', 'figure.d.ts', 'src/embed/element.js'])
      expect(fs.existsSync(path.join(pkg, file)), file).toBe(true);
    for (const variant of ['simd', 'simd/relaxed', 'scalar'])
      for (const module of ['poslab', 'poslab-lm', 'poslab-train'])
        expect(fs.existsSync(path.join(pkg, 'wasm', variant, `${module}.wasm`)), `${variant}/${module}`).toBe(true);
    // The root package.json stays private; the package is only ever packed from build/npm.
    expect(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).private).toBe(true);
  });

  it('Npm.NodeImportReadsItsOwnWasm', () => {
    const out = JSON.parse(run('node', ['node-check.mjs'], app));
    for (const variant of ['simd', 'scalar'])
      expect(out[variant], variant).toEqual({ shape: [2, 4], row1: expectedRow1 });
    expect(out.gpt2).toBe('function');
    expect(out.train).toBe('function');
  });

  it('Npm.NodeNamesAMissingWasmAndTheMend', () => {
    const wasm = path.join(app, 'node_modules/poslab/wasm/scalar/poslab-train.wasm');
    fs.renameSync(wasm, `${wasm}.away`);
    try {
      const script =
        "import('poslab').then((p) => p.createTrainLab({ variant: 'scalar' })).catch((e) => console.log(e.name, e.message))";
      expect(run('node', ['--input-type=module', '-e', script], app)).toMatch(
        /^PosLabError .*scalar.*poslab-train\.wasm.*reinstall the poslab package/,
      );
    } finally {
      fs.renameSync(`${wasm}.away`, wasm);
    }
  });

  it('Npm.TypesDeclareEveryExport', async () => {
    const pkg = path.join(app, 'node_modules/poslab');
    const manifest = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'));
    // '.' is imported as Node would; './figure' needs a bundler, so its names are read off figure.js.
    const api = Object.keys(await import(pathToFileURL(path.join(pkg, manifest.exports['.'].default)).href));
    const figure = [...fs.readFileSync(path.join(pkg, 'figure.js'), 'utf8').matchAll(/export \{ (\w+) \}/g)].map(
      (m) => m[1],
    );
    expect(api).toContain('createPosLab');
    expect(figure).toEqual(['definePoslabFigure']);
    for (const [entry, names] of [
      ['.', api],
      ['./figure', figure],
    ]) {
      const declared = declaredNames(path.join(pkg, manifest.exports[entry].types));
      for (const name of names) expect(declared, `${entry} declares ${name}`).toContain(name);
    }
  });

  describe('in a Vite app', () => {
    let browser;
    beforeAll(async () => {
      browser = await launch();
    });
    afterAll(() => browser?.close());

    // The page computes a row of the table in the main thread and shows a <poslab-figure>.
    async function expectComputesAndDraws(url) {
      const { page, context, problems } = await openPage(browser, url);
      await page.waitForFunction(() => document.body.dataset.row1, null, { timeout: 60_000 });
      expect(JSON.parse(await page.evaluate(() => document.body.dataset.row1))).toEqual(expectedRow1);
      await page.waitForFunction(
        () => document.querySelector('#figure')?.shadowRoot?.querySelector('.poslab-embed[data-drawn]'),
        null,
        { timeout: 120_000 },
      );
      const colours = await page.evaluate(() =>
        [...document.querySelector('#figure').shadowRoot.querySelectorAll('canvas')]
          .filter((c) => c.offsetParent !== null)
          .map((c) => {
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            const seen = new Set();
            for (let i = 0; i < d.length && seen.size < 50; i += 28)
              seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
            return seen.size;
          }),
      );
      expect(colours.length).toBeGreaterThan(0);
      for (const n of colours) expect(n, 'the figure is drawn').toBeGreaterThan(2);
      // No playground hosted: no "Open in PosLab" link.
      expect(
        await page.evaluate(() => document.querySelector('#figure').shadowRoot.querySelector('.embed-foot').hidden),
      ).toBe(true);
      expect(problems).toEqual([]);
      await context.close();
    }

    it('Npm.ViteBuildComputesAndDrawsAFigure', async () => {
      run('node', [vite, 'build', '--logLevel', 'warn'], app);
      // Every module's .wasm of the three builds (SIMD, its relaxed twin, scalar) is emitted as an
      // asset (each loaded only when asked for).
      const assets = fs.readdirSync(path.join(app, 'dist/assets'));
      expect(assets.filter((f) => f.endsWith('.wasm')).length, assets.join(' ')).toBe(9);
      const site = await serveSite(path.join(app, 'dist'));
      try {
        await expectComputesAndDraws(site.url);
      } finally {
        await site.close();
      }
    });

    it('Npm.ViteDevServesTheAppWithPoslabExcludedFromPrebundling', async () => {
      const { createServer } = await import('vite');
      const server = await createServer({ root: app, logLevel: 'warn', server: { port: 0 } });
      try {
        await server.listen();
        await expectComputesAndDraws(server.resolvedUrls.local[0]);
      } finally {
        await server.close();
      }
    });
  });
});
