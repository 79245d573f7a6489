// The language-model module's lab (poslab-gpt2): GPT-2's API (gpt2.js) and GPT-NeoX's
// (gpt-neox.js) bound to one instantiated module, so one heap holds either model.
import { bindGpt2 } from './gpt2.js';
import { bindGptNeox } from './gpt-neox.js';
import { guardMethods } from './raw.js';

/** GPT-2's methods unchanged, plus GPT-NeoX's and architectureOf. */
export function bindLm(m) {
  return { ...bindGpt2(m), ...guardMethods(bindGptNeox(m)) };
}
