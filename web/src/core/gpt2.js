// The GPT-2 API over the raw bindings of cpp/wasm/gpt2_bindings.cpp: configs with parameter
// counts, random-init and checkpoint models that live in the wasm heap until .delete(), a
// loader fed a .safetensors file chunk by chunk, and the traced forward pass. Declarations
// and docs: gpt2.d.ts.
import { PosLabError } from './errors.js';
import { call, checkpointArgs, familyMethods, precisionArg, tokenArray } from './lm-common.js';
import { guardMethods } from './raw.js';
import * as check from './validate.js';

/** The GPT-2 API bound to an instantiated poslab-lm module. */
export function bindGpt2(m) {
  // The core's position methods (kGpt2PositionNames); the first is the default, as trained.
  const positions = Object.freeze(m.gpt2Positions());

  // The core's checks of the tokens against the model (cpp/src/models/gpt2.cpp) name no field: the
  // same checks, with the same messages, run here first so the error names 'tokens'.
  const fitTokens = (ids, config) => {
    const field = { field: 'tokens' };
    if (ids.length > config.n_positions) {
      throw new PosLabError(`${ids.length} tokens exceed n_positions ${config.n_positions}`, field);
    }
    const bad = ids.findIndex((id) => id >= config.vocab_size);
    if (bad >= 0) {
      const vocabulary = `[0, ${config.vocab_size})`;
      throw new PosLabError(`token ${ids[bad]} at position ${bad} is outside the vocabulary ${vocabulary}`, field);
    }
    return ids;
  };

  // forward(tokens, { position, topK, trace, precision }) of a model handle.
  const forward = (alive, tokens, opts, config) => {
    const o = check.options(opts, 'forward', ['position', 'topK', 'trace', 'precision']);
    const precision = precisionArg(o.precision);
    const position = o.position === undefined ? positions[0] : check.string(o.position, 'position');
    if (!positions.includes(position)) {
      const expected = positions.join(', ');
      throw new PosLabError(`unknown position method '${position}' (expected ${expected})`, { field: 'position' });
    }
    const raw = alive();
    return call(() =>
      raw.forward(fitTokens(tokenArray(tokens, 'GPT-2'), config), {
        position,
        topK: o.topK === undefined ? 10 : check.integer(o.topK, 'topK', 1),
        trace: o.trace === undefined ? true : check.boolean(o.trace, 'trace'),
        precision,
      }),
    );
  };
  return guardMethods({
    /** The position methods forward() accepts, the default (as trained) first. */
    positions,
    /** Bytes the module's malloc has handed out and not had back: models count until delete(). */
    liveHeapBytes: () => m.liveHeapBytes(),
    ...familyMethods(m, { api: 'gpt2', label: 'GPT-2', forward }),
    safetensorsHeaderLength: (first8, fileSize, name) =>
      call(m.safetensorsHeaderLength, ...checkpointArgs(first8, 'first8', fileSize, name)),
  });
}
