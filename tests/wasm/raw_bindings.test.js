// Defence in depth: the embind layer validates again what the JS wrapper already checks, so
// a caller that bypasses the wrapper still gets an error, never a truncated size or garbage.
// This reaches below the public API (web/src/core/load.js and the raw signatures of
// cpp/wasm/bindings.cpp and gpt2_bindings.cpp, as tabled in cases/raw_bad_inputs.js): update
// it with them.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  RAW_BAD_INPUTS,
  RAW_CALLS,
  RAW_GPT2_BAD_INPUTS,
  RAW_GPT2_CALLS,
  RAW_GPT2_ELSEWHERE,
} from './cases/raw_bad_inputs.js';
import { TINY_GPT2 } from './cases/bad_inputs.js';
import { modulePath, VARIANTS, wrapperPath } from './helpers/paths.js';

const f32 = (n) => new Float32Array(n);
const tensor = (shape, data = f32(shape.reduce((a, b) => a * b, 1))) => ({ data, shape });
const PE_2x4 = Float32Array.from([0, 1, 0, 1, Math.sin(1), Math.cos(1), Math.sin(0.01), Math.cos(0.01)]);
const ARITY_ERROR = /called with \d+ arguments, expected \d+/;

async function loadRaw(variant, module) {
  const { loadModule } = await import(wrapperPath.replace(/poslab\.js$/, 'load.js'));
  const wasmBinary = fs.readFileSync(modulePath(variant, module));
  return loadModule({ variant, wasmBinary }, module);
}

// The module's embind functions (embind tags each with its argCount).
const boundFunctions = (m) => Object.keys(m).filter((k) => typeof m[k] === 'function' && m[k].argCount !== undefined);
const values = (make) => make().map(([, value]) => value);

// Calling `fn` with one argument too few and one too many throws embind's arity error.
function arityCases(calls) {
  return Object.entries(calls).flatMap(([fn, make]) => [
    ...(make().length > 0 ? [[`${fn} with one argument too few`, fn, values(make).slice(0, -1)]] : []),
    [`${fn} with one argument too many`, fn, [...values(make), 0]],
  ]);
}

describe.each(VARIANTS)('%s raw embind layer', (variant) => {
  let m;
  beforeAll(async () => {
    m = await loadRaw(variant, 'poslab');
  });
  // And the module still works: PE (2, 4) has frequencies 1 and 10000^(−1/2) = 0.01.
  const stillWorks = () => expect(m.sinusoidal(2, 4, 10000, 'interleaved', 0).data).toEqual(PE_2x4);

  test('RAW_CALLS lists every bound function with its arity', () => {
    expect(boundFunctions(m).sort()).toEqual(Object.keys(RAW_CALLS).sort());
    for (const [fn, make] of Object.entries(RAW_CALLS)) expect(make().length, fn).toBe(m[fn].argCount);
  });

  test.each(Object.keys(RAW_CALLS))('the valid call of %s succeeds', (fn) => {
    const result = m[fn](...values(RAW_CALLS[fn]));
    expect(result?.error).toBeUndefined();
  });

  test.each(RAW_BAD_INPUTS)('%s comes back as { error, field }', (what, call, pattern, field) => {
    const result = call(m);
    const message = result?.error;
    expect(message, `no error from the core for: ${what}`).toBeTypeOf('string');
    for (const p of [pattern].flat()) expect(message).toMatch(p);
    if (field !== undefined) expect(result.field, message).toBe(field);
    stillWorks();
  });

  test.each(arityCases(RAW_CALLS))('%s throws embind arity error', (what, fn, args) => {
    expect(() => m[fn](...args)).toThrow(ARITY_ERROR);
    stillWorks();
  });

  test('undefined options mean the defaults; null options are refused', () => {
    const x = tensor([2, 4], Float32Array.of(1, 2, 3, 4, 5, 6, 7, 8));
    expect(m.rope(x, 1, false, undefined)).toEqual(m.rope(x, 1, false, {}));
    expect(m.t5Buckets(4, 3, undefined)).toEqual(m.t5Buckets(4, 3, {}));
    expect(m.attention(x, x, x, undefined)).toEqual(m.attention(x, x, x, {}));
    expect(m.rope(x, 1, false, null).error).toMatch(/rope options must be an object \(got null\)/);
    expect(m.attention(x, x, x, null).error).toMatch(/attention options must be an object \(got null\)/);
  });

  test('a bias of -inf hides a key (the one non-finite value allowed)', () => {
    const x = tensor([1, 2], Float32Array.of(1, 0));
    const kv = tensor([2, 2], Float32Array.of(1, 0, 0, 1));
    const r = m.attention(x, kv, kv, { bias: tensor([1, 2], Float32Array.of(-Infinity, 0)) });
    expect(r.error).toBeUndefined();
    expect(Array.from(r.weights.data)).toEqual([0, 1]);
  });
});

describe.each(VARIANTS)('%s raw embind layer of GPT-2', (variant) => {
  let m;
  let model;
  let baseline;
  const logits = () => model.forward(Int32Array.of(3, 1, 4), { trace: false }).logits.data;
  beforeAll(async () => {
    m = await loadRaw(variant, 'poslab-lm');
    model = m.gpt2Random(JSON.stringify(TINY_GPT2), 3).model;
    baseline = logits();
  });
  afterAll(() => model?.delete());
  const api = () => ({ m, model });

  test('RAW_GPT2_CALLS lists every bound function', () => {
    const classes = ['Gpt2Model', 'Gpt2Loading', 'GptNeoxModel', 'GptNeoxLoading'];
    const functions = boundFunctions(m).filter((k) => !classes.includes(k) && !RAW_GPT2_ELSEWHERE.includes(k));
    expect([...functions, 'forward'].sort()).toEqual(Object.keys(RAW_GPT2_CALLS).sort());
  });

  test.each(Object.keys(RAW_GPT2_CALLS))('the valid call of %s succeeds', (fn) => {
    const args = values(RAW_GPT2_CALLS[fn]);
    const result = fn === 'forward' ? model.forward(...args) : m[fn](...args);
    expect(result?.error).toBeUndefined();
    result?.model?.delete();
    result?.loader?.delete();
  });

  test.each(RAW_GPT2_BAD_INPUTS)('%s comes back as { error, field }', (what, call, pattern, field) => {
    const result = call(api());
    const message = result?.error;
    expect(message, `no error from the core for: ${what}`).toBeTypeOf('string');
    for (const p of [pattern].flat()) expect(message).toMatch(p);
    if (field !== undefined) expect(result.field, message).toBe(field);
    expect(logits()).toEqual(baseline);
  });

  test.each(arityCases(RAW_GPT2_CALLS))('%s throws embind arity error', (what, fn, args) => {
    expect(() => (fn === 'forward' ? model.forward(...args) : m[fn](...args))).toThrow(
      /called with \d+ arguments?, expected \d+/,
    );
    expect(logits()).toEqual(baseline);
  });
});
