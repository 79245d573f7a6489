// The jobs the worker runs, by name: each is (lab, params, { progress }) → plain result of
// typed arrays (or a promise of one). JOBS get the core's API; the GPT-2 jobs get the GPT-2
// module's and are loaded with it, on first use (jobs/gpt2.js).
import { attention } from './attention.js';
import { encodings } from './encodings.js';
import { extrapolation } from './extrapolation.js';
import { offset } from './offset.js';
import { similarity } from './similarity.js';

export const JOBS = { encodings, similarity, extrapolation, offset, attention };

export const GPT2_JOBS = ['gpt2', 'gpt2Load', 'gpt2Cancel'];
export const loadGpt2Jobs = () => import('./gpt2.js');
