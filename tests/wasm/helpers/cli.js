// Runs the native `poslab` CLI, the reference every wasm result is checked against.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath, repoRoot } from './paths.js';

// Fails loudly instead of skipping: a suite that silently skips its oracle checks nothing.
export function requireCli() {
  if (!fs.existsSync(cliPath)) {
    throw new Error(
      `native poslab CLI not found at ${path.relative(repoRoot, cliPath) || cliPath}. Build it with ` +
        '`cmake -S . -B build/release -G Ninja && cmake --build build/release` ' +
        '(or point POSLAB_CLI at a built binary).',
    );
  }
}

// Resolves with { code, stdout, stderr }; never rejects on a non-zero exit.
export function runCli(args) {
  return new Promise((resolve) => {
    execFile(cliPath, args.map(String), { maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
      resolve({ code: error ? (error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

// The CLI's error text without its `poslab: error: ` prefix.
export const cliErrorMessage = (stderr) =>
  stderr
    .split('\n')
    .find((line) => line.startsWith('poslab: error: '))
    ?.slice('poslab: error: '.length)
    .trim();
