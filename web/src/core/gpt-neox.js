// The GPT-NeoX (Pythia) API over the raw bindings of cpp/wasm/gpt_neox_bindings.cpp, in the
// same lab object as GPT-2's (poslab-lm module): configs, random-init and checkpoint models
// that live in the wasm heap until .delete(), a loader fed a .safetensors file chunk by chunk,
// the forward pass (logits and/or next-token losses, trace, top-k, a RoPE scaling in place of
// the config's) and which architecture a checkpoint holds. Declarations and docs: gpt-neox.d.ts.
import { call, checkpointArgs, familyMethods } from './lm-common.js';
import { ropeModelForward } from './rope-lm.js';
import * as check from './validate.js';

/** The GPT-NeoX methods bound to an instantiated poslab-lm module (merged into its lab). */
export function bindGptNeox(m) {
  // A preset or config.json is required: a GPT-NeoX checkpoint does not say its head count
  // or rotary settings.
  const REQUIRED = 'a preset or config.json is required (GPT-NeoX checkpoints do not say their shape)';
  const { ropeScalings, forward } = ropeModelForward(m, 'GPT-NeoX');
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
      surgery: true,
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
