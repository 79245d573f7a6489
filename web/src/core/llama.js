// The Llama family's API (llama, mistral, qwen2, qwen3, gemma3_text, smollm3) over the raw bindings of
// cpp/wasm/llama_bindings.cpp, in the same lab object as GPT-2's and GPT-NeoX's (poslab-lm
// module): configs, random-init and checkpoint models (F32, F16 or BF16) that live in the wasm
// heap until .delete(), a loader fed a .safetensors file chunk by chunk, and the forward pass
// as GPT-NeoX's (rope-lm.js). Declarations and docs: llama.d.ts.
import { familyMethods } from './lm-common.js';
import { ropeModelForward } from './rope-lm.js';

/** The Llama methods bound to an instantiated poslab-lm module (merged into its lab). */
export function bindLlama(m) {
  const { forward } = ropeModelForward(m, 'Llama');
  return familyMethods(m, {
    api: 'llama',
    label: 'Llama',
    required: 'a preset or config.json is required (Llama checkpoints do not say their shape)',
    randomOptions: { dtype: 'F32' },
    forward,
    extra: { architecture: 'llama' },
    surgery: true,
  });
}
