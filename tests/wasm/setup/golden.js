// Reference outputs from the native CLI. As a vitest globalSetup it writes every case's
// inputs and the CLI's outputs into one temp dir, once per run, and hands the dir to the
// test files (inject('poslabGoldenDir')); test files fall back to generateGoldens() in a
// beforeAll when the config does not name this file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ALL_CASES } from '../cases/index.js';
import { requireCli, runCli } from '../helpers/cli.js';
import { writeNpy } from '../helpers/npy.js';
import { randomNormal, seedOf } from '../helpers/prng.js';

// A readable folder name; the hash keeps names that differ only in punctuation apart.
export const caseId = (c) => `${c.name.replace(/[^A-Za-z0-9.=-]+/g, '_').slice(0, 100)}-${seedOf(c.name).toString(16)}`;

export function makeInput(spec, seed) {
  if (typeof spec === 'function') return spec(seed);
  if (Array.isArray(spec)) return randomNormal(seed, spec);
  return randomNormal(seed, spec.shape, spec.std);
}

// The files a case reads and writes, in its own folder.
export function caseFiles(dir, c) {
  const folder = path.join(dir, caseId(c));
  const files = { folder, out: path.join(folder, 'out.npy'), weights: path.join(folder, 'weights.npy') };
  for (const name of Object.keys(c.inputs ?? {})) files[name] = path.join(folder, `${name}.npy`);
  return files;
}

async function generateCase(dir, c) {
  const files = caseFiles(dir, c);
  fs.mkdirSync(files.folder, { recursive: true });
  for (const [name, spec] of Object.entries(c.inputs ?? {})) {
    writeNpy(files[name], makeInput(spec, seedOf(`${c.name}/${name}`)));
  }
  const args = [...c.cli(files), '-o', files.out];
  const { code, stdout, stderr } = await runCli(args);
  if (code !== 0) {
    throw new Error(`native CLI failed on case "${c.name}": poslab ${args.join(' ')}\n${stderr}`);
  }
  fs.writeFileSync(path.join(files.folder, 'stdout.txt'), stdout);
}

// Runs the CLI for every case, two at a time (the machines have two cores).
export async function generateGoldens(dir, cases = ALL_CASES) {
  requireCli();
  const ids = new Set();
  for (const c of cases) {
    if (ids.has(caseId(c))) throw new Error(`two cases share the name "${c.name}"`);
    ids.add(caseId(c));
  }
  const queue = [...cases];
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) await generateCase(dir, c);
  };
  await Promise.all([worker(), worker()]);
  return dir;
}

export const makeGoldenDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-goldens-'));

export default async function setup(project) {
  const dir = makeGoldenDir();
  await generateGoldens(dir);
  project.provide('poslabGoldenDir', dir);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
