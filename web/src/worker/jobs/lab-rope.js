// The Long context and Position lens views' trained model: the lab's byte-level RoPE model (the
// text task, context 64, 2 layers, width 64; docs/lab.md says which command and seed made it),
// shipped with the page as F16 and run on the training module, which has its forward pass (the
// lens job reads it through trainModule and shippedCheckpoint). By default it reads the
// held-out tenth of the text it was trained on, which it never saw; every non-overlapping window
// of times × 64 bytes counts, so its curve by position is an average, not one text's noise.
import { passPerScaling } from './passes.js';

export const LAB_MODEL = 'lab-rope';
const CHECKPOINT = new URL('../../content/text-rope.safetensors', import.meta.url);
const MAX_WINDOWS = 16; // enough for a smooth curve, quick enough to draw on opening

let train = null; // the training module's API, once asked for (a promise)
let checkpoint = null; // the shipped weights' bytes (a promise)

/** The training module's API (core/train.js), loaded on first use and kept. */
export function trainModule() {
  train ??= import('../../core/train.js').then(({ createTrainLab }) => createTrainLab());
  train.catch(() => (train = null)); // a later job may try again
  return train;
}

/** The shipped model's checkpoint bytes, read on first use and kept. */
export function shippedCheckpoint() {
  checkpoint ??= bundledCheckpoint();
  checkpoint.catch(() => (checkpoint = null));
  return checkpoint;
}

async function bundledCheckpoint() {
  if (CHECKPOINT.protocol === 'file:') {
    // Node (the tests): neither specifier is a literal, so a bundler never follows fs.
    const fsModule = 'node:fs/promises';
    const { readFile } = await import(/* @vite-ignore */ fsModule);
    return new Uint8Array(await readFile(CHECKPOINT));
  }
  const response = await fetch(CHECKPOINT);
  if (!response.ok) throw new Error(`the bundled model did not load (${response.status})`);
  return new Uint8Array(await response.arrayBuffer());
}

const encode = (t) => new TextEncoder().encode(t);
/** The last tenth of some bytes: the text task's held-out part (the core's split_text). */
const tenth = (bytes) => bytes.subarray(bytes.length - Math.floor(bytes.length / 10));

/** The held-out last tenth of the lab's sample: what the shipped model never trained on. */
export async function heldOutSample() {
  // Loaded on first use: the Models view shares this job chunk and never needs the licences.
  const { LICENCE_SAMPLE } = await import('../../content/licences/index.js');
  return tenth(encode(LICENCE_SAMPLE));
}

/**
 * The curves of the Long context view for the shipped model: { methods, losses: { [scaling]:
 * Float32Array (T,) }, ms, T, N, note, model, random: false, tokenizer, textTokens, unit, source,
 * heapBytes: 0 (another module's heap) }.
 */
export async function labRopeCurves(p, methods, progress) {
  progress?.({ phase: 'model' });
  const train = await trainModule();
  const r = p.retrained; // { checkpoint, trainedOn: 'sample' | 'text', text, steps } or none
  const weights = r ? r.checkpoint : await shippedCheckpoint();
  let text;
  let source;
  if (r?.trainedOn === 'text') {
    text = tenth(encode(r.text));
    source = 'the held-out tenth of your text, never trained on';
  } else if (p.text) {
    text = encode(p.text);
    source = 'your text';
  } else {
    text = await heldOutSample();
    source = 'the held-out tenth of the lab’s sample (the end of GPL-3), never trained on';
  }
  const first = train.textLoss(weights, text, { context: 1, maxWindows: 1 });
  const N = first.trainLen;
  let T = p.times * N;
  let note = '';
  if (text.length < 2) throw Object.assign(new RangeError('the text needs at least 2 bytes'), { field: 'text' });
  if (text.length < T + 1) {
    T = text.length - 1;
    note = `the text has ${text.length} bytes, fewer than ${p.times} × ${N} + 1: the curves stop there`;
  }
  const windows = Math.min(MAX_WINDOWS, Math.floor((text.length - 1) / T));
  const { losses, ms } = passPerScaling(
    methods,
    progress,
    (scaling) => {
      const options = { context: T, scaling, factor: scaling === 'none' ? 1 : p.factor, maxWindows: windows };
      return Float32Array.from(train.textLoss(weights, text, options).losses);
    },
    { N, T },
  );
  return {
    methods,
    losses,
    ms,
    T,
    N,
    note: (note ? `${note}; ` : '') + `mean over ${windows} window${windows === 1 ? '' : 's'} of ${T} bytes`,
    model: r
      ? `the lab’s byte-level RoPE model retrained here (${r.steps} steps on ${r.trainedOn === 'text' ? 'your text' : 'the lab’s sample'}, its first 90%)`
      : 'a byte-level RoPE model trained by the lab (2 layers, width 64, context 64, 2000 steps)',
    random: false,
    tokenizer: 'none (bytes, vocabulary 256)',
    textTokens: text.length,
    unit: 'bytes',
    source,
    heapBytes: 0,
  };
}
