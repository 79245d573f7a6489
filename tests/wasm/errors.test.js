// Bad input throws PosLabError (an Error) with a message that names the problem, and the
// module keeps computing correct results afterwards.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { API_CALLS, BAD_INPUTS, GPT2_API_CALLS, GPT2_BAD_INPUTS, TINY_GPT2 } from './cases/bad_inputs.js';
import { cliErrorMessage, requireCli, runCli } from './helpers/cli.js';
import { expectPosLabError } from './helpers/errors.js';
import { loadLab, loadWrapper } from './helpers/lab.js';
import { modulePath, repoRoot, VARIANTS, wasmPath } from './helpers/paths.js';

const small = { data: Float32Array.from({ length: 24 }, (_, i) => Math.sin(i)), shape: [3, 8] };

// Results that must come out bit-identical before and after any error.
const probe = (lab) => ({
  sinusoidal: lab.sinusoidal({ length: 5, dim: 8 }).data,
  rope: lab.rope(small, { style: 'gptj', offset: 3 }).data,
  attention: lab.attention(small, small, small, { mask: 'causal' }).output.data,
});

// Errors the C++ core detects carry its message, the same text the CLI prints, and the option
// it is about as PosLabError.field (the 4th entry).
const SAME_AS_CLI = [
  [
    'rotary dim odd',
    ['rope-freqs', '--dim', 6, '--rotary-fraction', 0.5],
    (lab) => lab.ropeFrequencies({ headDim: 6, rotaryFraction: 0.5 }),
    'rotaryFraction',
  ],
  [
    't5 max distance inside the exact buckets',
    ['t5-buckets', '--qlen', 4, '--klen', 4, '--buckets', 32, '--max-distance', 8],
    (lab) => lab.t5Buckets({ queryLength: 4, keyLength: 4, bidirectional: false, numBuckets: 32, maxDistance: 8 }),
    'maxDistance',
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
    'lowFreqFactor',
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

  test('API_CALLS has a valid call of every method that takes arguments', () => {
    const methods = Object.keys(lab).filter((k) => typeof lab[k] === 'function' && lab[k].length > 0);
    expect(methods.sort()).toEqual(Object.keys(API_CALLS).sort());
  });

  test.each(Object.keys(API_CALLS))('the valid call of %s works (its bad cases differ in one thing)', (fn) => {
    expect(() => lab[fn](...API_CALLS[fn]().map(([, value]) => value))).not.toThrow();
  });

  test.each(BAD_INPUTS.map(([what, call, pattern, field]) => [what, call, pattern, field]))(
    '%s throws PosLabError naming its field, and the module keeps working',
    (what, call, pattern, field) => {
      const error = expectPosLabError(PosLabError, () => call(lab), pattern);
      if (field !== undefined) expect(error.field, error.message).toBe(field);
      const after = probe(lab);
      for (const key of Object.keys(baseline)) expect(after[key], key).toEqual(baseline[key]);
    },
  );

  test('sizes over the cap are refused before allocating (no heap growth)', () => {
    const before = lab.heapBytes();
    expectPosLabError(PosLabError, () => lab.sinusoidal({ length: lab.maxElements, dim: 2 }), /limit|large|elements/i);
    expect(lab.heapBytes()).toBe(before);
  });

  test.each(SAME_AS_CLI)('%s: the message is the CLI message', async (what, args, call, field) => {
    requireCli();
    const { code, stderr } = await runCli([...args, '-o', path.join(os.tmpdir(), 'poslab-never-written.npy')]);
    expect(code).not.toBe(0);
    const message = cliErrorMessage(stderr);
    expect(message, stderr).toBeTruthy();
    const error = expectPosLabError(PosLabError, () => call(lab));
    expect(error.message).toContain(message);
    expect(error.field).toBe(field);
  });
});

// Whatever a module throws (embind's BindingError when the API and the module disagree on a
// signature, a trap, a bare C++ exception pointer) reaches the caller as a PosLabError.
describe('errors thrown by the module become PosLabError', () => {
  let PosLabError;
  let bindPosLab;
  let raw;
  beforeAll(async () => {
    ({ PosLabError, bindPosLab } = await loadWrapper());
    const { loadModule } = await import(path.join(repoRoot, 'web/src/core/load.js'));
    raw = await loadModule({ variant: 'simd', wasmBinary: fs.readFileSync(wasmPath('simd')) });
  });
  // The API bound to the real module with its sinusoidal replaced.
  const withSinusoidal = (sinusoidal) => bindPosLab(Object.assign(Object.create(raw), { sinusoidal }));

  test.each([
    ['a BindingError (one argument too few)', (...args) => raw.sinusoidal(...args.slice(1)), /sinusoidal/, /arguments/],
    ['a BindingError (one argument too many)', (...args) => raw.sinusoidal(...args, 0), /sinusoidal/, /arguments/],
    [
      'a trap',
      () => {
        throw new WebAssembly.RuntimeError('unreachable');
      },
      /sinusoidal/,
      /unreachable/,
    ],
    [
      'a bare C++ exception pointer',
      () => {
        throw 5251072;
      },
      /sinusoidal/,
      /C\+\+ exception/,
    ],
    [
      'a TypeError',
      () => {
        throw new TypeError('Cannot convert "x" to double');
      },
      /sinusoidal/,
      /Cannot convert/,
    ],
  ])('%s', (what, sinusoidal, ...patterns) => {
    const error = expectPosLabError(
      PosLabError,
      () => withSinusoidal(sinusoidal).sinusoidal({ length: 2, dim: 4 }),
      patterns,
    );
    expect(error.cause).toBeDefined();
  });
});

describe.each(VARIANTS)('%s GPT-2 API rejects bad input', (variant) => {
  let PosLabError;
  let lab;
  let model;
  let baseline;
  const logits = () => model.forward([3, 1, 4], { trace: false }).logits.data;
  beforeAll(async () => {
    let createGpt2Lab;
    ({ PosLabError, createGpt2Lab } = await loadWrapper());
    const wasmBinary = fs.readFileSync(modulePath(variant, 'poslab-lm'));
    lab = await createGpt2Lab({ variant, wasmBinary });
    model = lab.gpt2Random({ config: TINY_GPT2, seed: 3 });
    baseline = logits();
  });
  afterAll(() => model?.delete());

  test.each(Object.keys(GPT2_API_CALLS))('the valid call of %s works', (fn) => {
    const args = GPT2_API_CALLS[fn]().map(([, value]) => value);
    const result = fn === 'forward' ? model.forward(...args) : lab[fn](...args);
    result?.delete?.();
  });

  test.each(GPT2_BAD_INPUTS)(
    '%s throws PosLabError naming its field, and the module keeps working',
    (what, call, pattern, field) => {
      const error = expectPosLabError(PosLabError, () => call({ lab, model }), pattern);
      if (field !== undefined) expect(error.field, error.message).toBe(field);
      expect(logits()).toEqual(baseline);
    },
  );
});
