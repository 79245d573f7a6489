// The length-generalisation lab's JS API over the training module (build/wasm/VARIANT/
// poslab-train.wasm, cpp/wasm/train_bindings.cpp): one TrainRun per configuration, stepped by
// the caller (the page's training worker steps a few at a time and posts the losses).
// Declarations: train.d.ts.
import { PosLabError } from './errors.js';
import { loadModule } from './load.js';
import { lensArgs, lensMapArgs, runSurgery, surgeryArgs, tokenArray } from './lm-common.js';
import { guardMethods, toPosLabError, unwrap } from './raw.js';
import * as check from './validate.js';

const CONFIG_KEYS = [
  'task',
  'position',
  'randomizedPositions',
  'coupledPositions',
  'padOperands',
  'indexHints',
  'trainLen',
  'testLen',
  'layers',
  'width',
  'heads',
  'batch',
  'steps',
  'lr',
  'warmupSteps',
  'seed',
  'embedScale',
  'nposMax',
  'abacusMaxOffset',
  'foxDecayMax',
  'sinks',
  'nopeEvery',
  'attnFloorScale',
  'attnScale',
  'evalPositions',
  'evalExamples',
  'text',
];

/**
 * Loads the training module and returns the lab's API.
 * @param {{ variant?: 'simd'|'scalar', wasmBinary?: Uint8Array|ArrayBuffer, factory?: Function }} [config]
 */
export async function createTrainLab(config = {}) {
  check.options(config, 'createTrainLab', ['variant', 'wasmBinary', 'factory']);
  return bindTrain(await loadModule(config, 'poslab-train'));
}

/** The lab's API over an instantiated training module `m`. */
export function bindTrain(m) {
  const defaults = Object.freeze(m.trainDefaults());
  const names = Object.freeze(m.trainNames());
  return {
    defaults,
    names,
    createRun(config = {}) {
      check.options(config, 'createRun', CONFIG_KEYS);
      return wrapRun(calling('createRun', () => m.trainCreate(config)));
    },
    /**
     * A text model's loss by position (train.d.ts): its checkpoint's bytes, a text's bytes and
     * { context?, scaling?, factor?, maxWindows? }.
     */
    textLoss(checkpoint, text, options = {}) {
      check.options(options, 'textLoss', ['context', 'scaling', 'factor', 'maxWindows']);
      return calling('textLoss', () => m.textLoss(checkpoint, text, options));
    },
    /**
     * The position lens on a lab checkpoint (train.d.ts): its bytes, token ids (a byte-level
     * text model's: the text's bytes) and { period?, seed?, shift?, localWindow?, rope?, surgery? }.
     */
    textLens(checkpoint, tokens, options = {}) {
      const args = lensArgs(options, 'textLens');
      const ids = labTokens(tokens);
      return calling('textLens', () => m.textLens(checkpoint, ids, args));
    },
    /** One head's attention map on a lab checkpoint: { layer, head, rope?, surgery? } → { size, attention }. */
    textLensMap(checkpoint, tokens, options = {}) {
      const args = lensMapArgs(options, 'textLensMap');
      const ids = labTokens(tokens);
      return calling('textLensMap', () => m.textLensMap(checkpoint, ids, args));
    },
    /**
     * The position-surgery sweep on a lab checkpoint (train.d.ts): its bytes, token ids (a
     * byte-level text model's: the text's bytes) and { sweep, group?, bases?, window?, seed?,
     * surgery?, rope?, onProgress? } → surgery.json's report (docs/surgery.md).
     */
    textSurgery(checkpoint, tokens, options) {
      const { args, onProgress } = surgeryArgs(options, 'textSurgery');
      const ids = labTokens(tokens);
      return calling('textSurgery', () =>
        runSurgery(
          (progress) => m.textSurgery(checkpoint, ids, progress ? { ...args, onProgress: progress } : args),
          onProgress,
        ),
      );
    },
  };
}

// A raw call's result, its { error } (or anything it throws) a PosLabError naming `name`.
const calling = (name, fn) => {
  try {
    return unwrap(fn());
  } catch (cause) {
    throw toPosLabError(name, cause);
  }
};

// The lab lens's ids: a byte-level text model's are a text's bytes (a Uint8Array), or any
// token ids.
const labTokens = (tokens) =>
  tokenArray(tokens instanceof Uint8Array ? Int32Array.from(tokens) : tokens, 'the lab’s model');

function wrapRun(raw) {
  let disposed = false;
  const live = () => {
    if (disposed) throw new PosLabError('this training run was disposed');
    return raw;
  };
  const runConfig = Object.freeze(raw.config());
  const modelConfig = raw.modelConfig();
  const vocabulary = Object.freeze(modelConfig.vocabulary);
  delete modelConfig.vocabulary;
  const lossCurve = [];
  const methods = guardMethods({
    // No default parameters below: guardMethods counts the declared arguments.
    step(count) {
      count = check.integer(count ?? 1, 'count', 0);
      const losses = unwrap(live().step(count)).data;
      const first = lossCurve.length;
      losses.forEach((loss, i) => lossCurve.push([first + i, loss]));
      return losses;
    },
    evaluate() {
      return unwrap(live().evaluate());
    },
    attentionExample(length, index) {
      check.integer(length, 'length', 1);
      index = check.integer(index ?? 0, 'index', 0);
      return unwrap(live().attentionExample(length, index));
    },
    result(wallTimeS) {
      wallTimeS = check.number(wallTimeS ?? 0, 'wallTimeS');
      return JSON.parse(unwrap(live().result(wallTimeS)));
    },
    checkpoint() {
      return unwrap(live().checkpoint());
    },
    dump() {
      return unwrap(live().dump());
    },
    dispose() {
      if (!disposed) raw.delete();
      disposed = true;
    },
  });
  const progress = () => live().progress();
  return Object.defineProperties(methods, {
    config: { value: runConfig, enumerable: true },
    modelConfig: { value: Object.freeze(modelConfig), enumerable: true },
    vocabulary: { value: vocabulary, enumerable: true },
    stepsDone: { get: () => progress().stepsDone, enumerable: true },
    tokensSeen: { get: () => progress().tokensSeen, enumerable: true },
    flopsSpent: { get: () => progress().flopsSpent, enumerable: true },
    lossCurve: { get: () => lossCurve.map((pair) => pair.slice()), enumerable: true },
  });
}
