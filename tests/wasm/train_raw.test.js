// The training module's embind layer below the JS API (cpp/wasm/train_bindings.cpp): every
// bound function is listed here, each has a valid call, bad arguments come back as
// { error, field } (never a trap or a truncated size), wrong arities throw embind's error, and
// a run keeps working after each refusal.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { modulePath, repoRoot, VARIANTS, wrapperPath } from './helpers/paths.js';

async function loadRaw(variant) {
  const { loadModule } = await import(wrapperPath.replace(/poslab\.js$/, 'load.js'));
  const wasmBinary = fs.readFileSync(modulePath(variant, 'poslab-train'));
  return loadModule({ variant, wasmBinary }, 'poslab-train');
}

const SMALL = { trainLen: 3, layers: 1, width: 8, heads: 2, batch: 2, steps: 50, evalExamples: 2 };
// The Long context view's shipped text model, and some bytes for it to read.
const TEXT_MODEL = new Uint8Array(fs.readFileSync(path.join(repoRoot, 'web/src/content/text-rope.safetensors')));
const TEXT = new TextEncoder().encode('All rights reserved. '.repeat(8));
const IDS = Int32Array.from(TEXT);
const CALLS = {
  trainCreate: [SMALL],
  trainDefaults: [],
  trainNames: [],
  textLoss: [TEXT_MODEL, TEXT, { context: 16, maxWindows: 2 }],
  textLens: [TEXT_MODEL, Int32Array.from(TEXT), { period: 4 }],
  textLensMap: [TEXT_MODEL, Int32Array.from(TEXT), { layer: 1, head: 3, surgery: { nopeHeads: [[1, 3]] } }],
  textSurgery: [TEXT_MODEL, Int32Array.from(TEXT), { sweep: 'layers', window: 32, seed: 2 }],
};

// [what, call(m, run), message pattern, field]
const BAD = [
  ['trainCreate with a number', (m) => m.trainCreate(3), /config/, undefined],
  ['trainCreate with an unknown key', (m) => m.trainCreate({ stepz: 1 }), /stepz/, 'stepz'],
  ['trainCreate with text for a size', (m) => m.trainCreate({ trainLen: 'x' }), /trainLen/, 'trainLen'],
  ['trainCreate with a negative size', (m) => m.trainCreate({ batch: -1 }), /batch/, 'batch'],
  ['trainCreate with a huge size', (m) => m.trainCreate({ width: 2 ** 40 }), /width/, 'width'],
  ['trainCreate with heads not dividing the width', (m) => m.trainCreate({ heads: 3 }), /divisible/, 'heads'],
  ['trainCreate with an unknown task', (m) => m.trainCreate({ task: 'juggle' }), /juggle/, 'task'],
  ['trainCreate with an infinite lr', (m) => m.trainCreate({ lr: Infinity }), /lr|learning rate/, 'lr'],
  ['step with text', (_m, run) => run.step('x'), /count/, 'count'],
  ['step with a negative count', (_m, run) => run.step(-1), /count/, 'count'],
  ['attentionExample of length 0', (_m, run) => run.attentionExample(0, 0), /length/, 'length'],
  ['attentionExample past the longest test length', (_m, run) => run.attentionExample(99, 0), /length/, 'length'],
  ['attentionExample past the examples', (_m, run) => run.attentionExample(2, 5), /index/, 'index'],
  ['result with a negative wall time', (_m, run) => run.result(-1), /wallTimeS/, 'wallTimeS'],
  ['textLoss with a number for the checkpoint', (m) => m.textLoss(3, TEXT, {}), /checkpoint/, 'checkpoint'],
  ['textLoss with bytes that are no checkpoint', (m) => m.textLoss(TEXT, TEXT, {}), /checkpoint/, undefined],
  ['textLoss with an unknown scaling', (m) => m.textLoss(TEXT_MODEL, TEXT, { scaling: 'warp' }), /warp/, 'scaling'],
  ['textLoss past the text', (m) => m.textLoss(TEXT_MODEL, TEXT, { context: 512 }), /text/, 'text'],
  ['textLoss past the longest context', (m) => m.textLoss(TEXT_MODEL, TEXT, { context: 5000 }), /context/, 'context'],
  ['textLens with bytes for the ids', (m) => m.textLens(TEXT_MODEL, TEXT, {}), /Int32Array/, 'tokens'],
  ['textLens with a negative period', (m) => m.textLens(TEXT_MODEL, IDS, { period: -1 }), /period/, 'period'],
  ['textLens with a period past half', (m) => m.textLens(TEXT_MODEL, IDS, { period: 200 }), /half/, 'period'],
  ['textLens with an unknown key', (m) => m.textLens(TEXT_MODEL, IDS, { heads: 1 }), /heads/, 'heads'],
  [
    'textLens with an unknown scaling',
    (m) => m.textLens(TEXT_MODEL, IDS, { rope: { scaling: 'warp' } }),
    /warp/,
    'scaling',
  ],
  ['textLens in double', (m) => m.textLens(TEXT_MODEL, IDS, { precision: 'double' }), /float only/, 'precision'],
  [
    'textLens past the vocabulary',
    (m) => m.textLens(TEXT_MODEL, Int32Array.of(1, 2, 3, 4, 5, 999), {}),
    /vocabulary/,
    'tokens',
  ],
  ['textLensMap past the layers', (m) => m.textLensMap(TEXT_MODEL, IDS, { layer: 2 }), /layer/, 'layer'],
  ['textLensMap past the heads', (m) => m.textLensMap(TEXT_MODEL, IDS, { head: 4 }), /head/, 'head'],
  [
    'textLensMap with a NoPE layer past the layers',
    (m) => m.textLensMap(TEXT_MODEL, IDS, { surgery: { nopeLayers: [2] } }),
    /layer 2/,
    'nopeLayers',
  ],
  [
    'textLens with a surgery that is no object',
    (m) => m.textLens(TEXT_MODEL, IDS, { surgery: 'nope' }),
    /surgery/,
    'surgery',
  ],
  ['textSurgery without a sweep', (m) => m.textSurgery(TEXT_MODEL, IDS, {}), /sweep/, 'sweep'],
  [
    'textSurgery with bytes for the ids',
    (m) => m.textSurgery(TEXT_MODEL, TEXT, { sweep: 'layers' }),
    /Int32Array/,
    'tokens',
  ],
  [
    'textSurgery with an unknown sweep',
    (m) => m.textSurgery(TEXT_MODEL, IDS, { sweep: 'x' }),
    /unknown sweep/,
    'sweep',
  ],
  [
    'textSurgery in double',
    (m) => m.textSurgery(TEXT_MODEL, IDS, { sweep: 'layers', precision: 'double' }),
    /float only/,
    'precision',
  ],
  [
    'textSurgery with a window of 1',
    (m) => m.textSurgery(TEXT_MODEL, IDS, { sweep: 'layers', window: 1 }),
    /window/,
    'window',
  ],
  [
    'textSurgery with a fractional group',
    (m) => m.textSurgery(TEXT_MODEL, IDS, { sweep: 'bands', group: 0.5 }),
    /group/,
    'group',
  ],
  [
    'textSurgery with a group past the pairs',
    (m) => m.textSurgery(TEXT_MODEL, IDS, { sweep: 'bands', group: 9 }),
    /group/,
    'group',
  ],
  [
    'textSurgery with a base of 1',
    (m) => m.textSurgery(TEXT_MODEL, IDS, { sweep: 'base', bases: [1] }),
    /above 1/,
    'bases',
  ],
  [
    'textSurgery with bases for bands',
    (m) => m.textSurgery(TEXT_MODEL, IDS, { sweep: 'bands', bases: [9] }),
    /base sweep/,
    'bases',
  ],
  [
    'textSurgery single without a surgery',
    (m) => m.textSurgery(TEXT_MODEL, IDS, { sweep: 'single' }),
    /surgery/,
    'surgery',
  ],
  [
    'textSurgery with a pair range that is no pair',
    (m) => m.textSurgery(TEXT_MODEL, IDS, { sweep: 'single', surgery: { ropeZeroPairs: [[1, 2, 3]] } }),
    /pair/,
    'ropeZeroPairs',
  ],
  [
    'textSurgery with a NaN base',
    (m) => m.textSurgery(TEXT_MODEL, IDS, { sweep: 'single', surgery: { ropeBase: NaN } }),
    /above 1/,
    'ropeBase',
  ],
  [
    'textSurgery with a head past the heads',
    (m) => m.textSurgery(TEXT_MODEL, IDS, { sweep: 'single', surgery: { ablateHeads: [[0, 4]] } }),
    /head 4/,
    'ablateHeads',
  ],
  [
    'textSurgery with onProgress not a function',
    (m) => m.textSurgery(TEXT_MODEL, IDS, { sweep: 'layers', onProgress: 1 }),
    /onProgress/,
    'onProgress',
  ],
  [
    'textSurgery stopped by onProgress',
    (m) => m.textSurgery(TEXT_MODEL, IDS, { sweep: 'layers', onProgress: () => false }),
    /stopped/,
    'onProgress',
  ],
];

describe.each(VARIANTS)('%s raw embind layer of the training module', (variant) => {
  let m;
  let run;
  beforeAll(async () => {
    m = await loadRaw(variant);
    run = m.trainCreate(SMALL);
  });
  afterAll(() => run?.delete());

  test('CALLS lists every bound function', () => {
    const functions = Object.keys(m).filter(
      (k) => typeof m[k] === 'function' && m[k].argCount !== undefined && k !== 'TrainRun',
    );
    expect(functions.sort()).toEqual(Object.keys(CALLS).sort());
  });

  test.each(Object.keys(CALLS))('the valid call of %s succeeds', (fn) => {
    const result = m[fn](...CALLS[fn]);
    expect(result?.error).toBeUndefined();
    if (fn === 'trainCreate') result.delete();
  });

  test.each(BAD)('%s comes back as { error, field }', (what, call, pattern, field) => {
    const result = call(m, run);
    expect(result?.error, `no error from the core for: ${what}`).toBeTypeOf('string');
    expect(result.error).toMatch(pattern);
    if (field !== undefined) expect(result.field, result.error).toBe(field);
    // The run still works.
    expect(run.step(1).data.length).toBe(1);
  });

  test.each([
    ['trainCreate', []],
    ['trainCreate', [SMALL, 0]],
    ['trainDefaults', [0]],
  ])('%s with a wrong arity throws embind arity error', (fn, args) => {
    expect(() => m[fn](...args)).toThrow(/called with \d+ arguments?, expected \d+/);
  });
});
