// Bad input throws PosLabError (an Error) with a message that names the problem, and the
// module keeps computing correct results afterwards.
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { BAD_INPUTS } from './cases/bad_inputs.js';
import { cliErrorMessage, requireCli, runCli } from './helpers/cli.js';
import { expectPosLabError } from './helpers/errors.js';
import { loadLab, loadWrapper } from './helpers/lab.js';
import { VARIANTS } from './helpers/paths.js';

const small = { data: Float32Array.from({ length: 24 }, (_, i) => Math.sin(i)), shape: [3, 8] };

// Results that must come out bit-identical before and after any error.
const probe = (lab) => ({
  sinusoidal: lab.sinusoidal({ length: 5, dim: 8 }).data,
  rope: lab.rope(small, { style: 'gptj', offset: 3 }).data,
  attention: lab.attention(small, small, small, { mask: 'causal' }).output.data,
});

// Errors the C++ core detects carry its message, the same text the CLI prints.
const SAME_AS_CLI = [
  [
    'rotary dim odd',
    ['rope-freqs', '--dim', 6, '--rotary-fraction', 0.5],
    (lab) => lab.ropeFrequencies({ headDim: 6, rotaryFraction: 0.5 }),
  ],
  [
    't5 max distance inside the exact buckets',
    ['t5-buckets', '--qlen', 4, '--klen', 4, '--buckets', 32, '--max-distance', 8],
    (lab) => lab.t5Buckets({ queryLength: 4, keyLength: 4, bidirectional: false, numBuckets: 32, maxDistance: 8 }),
  ],
  [
    'llama3 factors out of order',
    [
      'rope-freqs',
      '--dim',
      8,
      '--scaling',
      'llama3',
      '--factor',
      2,
      '--original-len',
      16,
      '--low-freq-factor',
      4,
      '--high-freq-factor',
      2,
    ],
    (lab) =>
      lab.ropeFrequencies({
        headDim: 8,
        scaling: 'llama3',
        factor: 2,
        originalLength: 16,
        lowFreqFactor: 4,
        highFreqFactor: 2,
      }),
  ],
];

describe.each(VARIANTS)('%s wasm rejects bad input', (variant) => {
  let lab;
  let PosLabError;
  let baseline;
  beforeAll(async () => {
    ({ PosLabError } = await loadWrapper());
    lab = await loadLab(variant);
    baseline = probe(lab);
  });

  test.each(BAD_INPUTS.map(([what, call, pattern]) => [what, call, pattern]))(
    '%s throws PosLabError and the module keeps working',
    (what, call, pattern) => {
      expectPosLabError(PosLabError, () => call(lab), pattern);
      const after = probe(lab);
      for (const key of Object.keys(baseline)) expect(after[key], key).toEqual(baseline[key]);
    },
  );

  test('sizes over the cap are refused before allocating (no heap growth)', () => {
    const before = lab.heapBytes();
    expectPosLabError(PosLabError, () => lab.sinusoidal({ length: lab.maxElements, dim: 2 }), /limit|large|elements/i);
    expect(lab.heapBytes()).toBe(before);
  });

  test.each(SAME_AS_CLI)('%s: the message is the CLI message', async (what, args, call) => {
    requireCli();
    const { code, stderr } = await runCli([...args, '-o', path.join(os.tmpdir(), 'poslab-never-written.npy')]);
    expect(code).not.toBe(0);
    const message = cliErrorMessage(stderr);
    expect(message, stderr).toBeTruthy();
    expect(expectPosLabError(PosLabError, () => call(lab)).message).toContain(message);
  });
});
