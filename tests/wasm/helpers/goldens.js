// Reads a case's inputs and native outputs from the golden dir made by setup/golden.js.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { caseFiles, generateGoldens, makeGoldenDir } from '../setup/golden.js';
import { readNpy } from './npy.js';

// The golden dir for these cases: the global setup's, or one made here when the vitest
// config has no globalSetup (cheap: one CLI call per case).
export function useGoldenDir(cases) {
  let dir;
  let own = null;
  beforeAll(async () => {
    dir = inject('poslabGoldenDir');
    if (!dir) {
      own = makeGoldenDir();
      dir = await generateGoldens(own, cases);
    }
  }, 60_000);
  afterAll(() => {
    if (own) fs.rmSync(own, { recursive: true, force: true });
  });
  return () => dir;
}

// Inputs as the JS API takes them ({data, shape}), expected outputs and scalars.
export function loadCase(dir, c) {
  const files = caseFiles(dir, c);
  const inputs = {};
  for (const name of Object.keys(c.inputs ?? {})) {
    const { data, shape } = readNpy(files[name]);
    inputs[name] = { data, shape };
  }
  let expected = {};
  for (const name of c.outputs ?? ['out']) expected[name] = readNpy(files[name]);
  if (c.derive) expected = c.derive(expected);
  const stdout = fs.readFileSync(path.join(files.folder, 'stdout.txt'), 'utf8');
  const scalars = c.stdout ? c.stdout(stdout) : {};
  return { inputs, expected, scalars };
}
