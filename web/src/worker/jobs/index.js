// The jobs the worker runs, by name: each is (lab, params, { progress }) → plain result of
// typed arrays (or a promise of one). JOBS get the core's API; the language-model jobs
// (LM_JOBS) get the language-model module's and are loaded with it, on first use (jobs/lm.js).
import { attention } from './attention.js';
import { encodings } from './encodings.js';
import { extrapolation } from './extrapolation.js';
import { offset } from './offset.js';
import { similarity } from './similarity.js';

export const JOBS = { encodings, similarity, extrapolation, offset, attention };

// The Long context view's jobs run on the same module (GPT-NeoX), in its own worker, and so
// do the RoPE inspector's (the module reads config.json), the Position lens's and Surgery's.
export const LM_JOBS = ['lm', 'lmLoad', 'lmCancel', 'longContext', 'ropeConfig', 'lens', 'surgery'];
export const loadLmJobs = () =>
  Promise.all([
    import('./lm.js'),
    import('./long-context.js'),
    import('./rope-config.js'),
    import('./lens.js'),
    import('./surgery.js'),
  ]).then(([lm, longContext, ropeConfig, lens, surgery]) => ({
    ...lm,
    ...longContext,
    ...ropeConfig,
    ...lens,
    ...surgery,
  }));
