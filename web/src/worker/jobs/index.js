// The jobs the worker runs, by name: each is (lab, params, { progress }) → plain result of
// typed arrays (or a promise of one). JOBS get the core's API; the GPT-2 jobs get the GPT-2
// module's and are loaded with it, on first use (jobs/gpt2.js).
import { attention } from './attention.js';
import { encodings } from './encodings.js';
import { extrapolation } from './extrapolation.js';
import { offset } from './offset.js';
import { similarity } from './similarity.js';

export const JOBS = { encodings, similarity, extrapolation, offset, attention };

// The Long context view's jobs run on the same module (GPT-NeoX), in its own worker, and so
// do the RoPE inspector's (the module reads config.json) and the Position lens's.
export const GPT2_JOBS = ['gpt2', 'gpt2Load', 'gpt2Cancel', 'longContext', 'ropeConfig', 'lens'];
export const loadGpt2Jobs = () =>
  Promise.all([import('./gpt2.js'), import('./long-context.js'), import('./rope-config.js'), import('./lens.js')]).then(
    ([gpt2, longContext, ropeConfig, lens]) => ({ ...gpt2, ...longContext, ...ropeConfig, ...lens }),
  );
