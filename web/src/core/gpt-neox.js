// The GPT-NeoX (Pythia) API over the raw bindings of cpp/wasm/gpt_neox_bindings.cpp, in the
// same lab object as GPT-2's (poslab-gpt2 module): configs, random-init and checkpoint models
// that live in the wasm heap until .delete(), a loader fed a .safetensors file chunk by chunk,
// the forward pass (logits and/or next-token losses, trace, top-k, a RoPE scaling in place of
// the config's) and which architecture a checkpoint holds. Declarations and docs: gpt-neox.d.ts.
import { PosLabError } from './errors.js';
import { call, checkpointArgs, familyMethods, precisionArg, tokenArray } from './lm-common.js';
import * as check from './validate.js';

const ROPE_KEYS = ['scaling', 'factor', 'originalLength', 'lowFreqFactor', 'highFreqFactor', 'betaFast', 'betaSlow'];

/** The GPT-NeoX methods bound to an instantiated poslab-gpt2 module (merged into its lab). */
export function bindGptNeox(m) {
  // The core's scalings (kRopeScalingNames), 'none' first.
  const ropeScalings = Object.freeze(m.ropeScalings());

  // A preset or config.json is required: a GPT-NeoX checkpoint does not say its head count
  // or rotary settings.
  const REQUIRED = 'a preset or config.json is required (GPT-NeoX checkpoints do not say their shape)';

  // rope: { scaling, factor?, originalLength?, ... }: types here, ranges in the core.
  const ropeArg = (value) => {
    const o = check.options(value, 'rope', ROPE_KEYS, 'rope');
    if (value === undefined) return undefined;
    const scaling = check.string(o.scaling, 'scaling');
    if (!ropeScalings.includes(scaling)) {
      throw new PosLabError(`unknown RoPE scaling '${scaling}' (expected ${ropeScalings.join(', ')})`, {
        field: 'scaling',
      });
    }
    const out = { scaling };
    for (const key of ['factor', 'lowFreqFactor', 'highFreqFactor', 'betaFast', 'betaSlow']) {
      if (o[key] !== undefined) out[key] = check.number(o[key], key);
    }
    if (o.originalLength !== undefined) out.originalLength = check.integer(o.originalLength, 'originalLength', 1);
    return out;
  };

  const FORWARD_KEYS = ['precision', 'trace', 'topK', 'logits', 'lossByPosition', 'rope'];

  // forward(tokens, { precision, trace, topK, logits, lossByPosition, rope }) of a model handle.
  const forward = (alive, tokens, opts) => {
    const o = check.options(opts, 'forward', FORWARD_KEYS);
    const args = {
      precision: precisionArg(o.precision),
      topK: o.topK === undefined ? 10 : check.integer(o.topK, 'topK', 1),
      trace: o.trace === undefined ? false : check.boolean(o.trace, 'trace'),
      logits: o.logits === undefined ? true : check.boolean(o.logits, 'logits'),
      lossByPosition: o.lossByPosition === undefined ? false : check.boolean(o.lossByPosition, 'lossByPosition'),
    };
    const rope = ropeArg(o.rope);
    if (rope) args.rope = rope;
    const ids = tokenArray(tokens, 'GPT-NeoX');
    const handle = alive();
    return call(() => handle.forward(ids, args));
  };
  return {
    /** The RoPE scalings forward's rope.scaling accepts, 'none' first. */
    ropeScalings,
    /** Size of the wasm heap in bytes (it only grows: the high-water mark). */
    wasmHeapBytes: () => m.wasmHeapBytes(),
    ...familyMethods(m, {
      api: 'gptNeox',
      label: 'GPT-NeoX',
      required: REQUIRED,
      randomOptions: { dtype: 'F32' },
      forward,
      extra: { architecture: 'gpt_neox' },
    }),

    /** 'gpt2' | 'gpt_neox' from a checkpoint's first 8 + N bytes (safetensorsHeaderLength gives N). */
    architectureOf: (header, fileSize, name) =>
      call(m.lmArchitectureOfCheckpoint, ...checkpointArgs(header, 'header', fileSize, name)),

    /** config.json's model_type: 'gpt2' | 'gpt_neox', or null when it has none. */
    architectureOfConfig(text, name) {
      return call(
        m.lmArchitectureOfConfig,
        check.string(text, 'config'),
        name === undefined ? 'config.json' : check.string(name, 'name'),
      );
    },
  };
}
