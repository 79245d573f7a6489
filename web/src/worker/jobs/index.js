// The jobs the worker runs, by name: each is (lab, params) → plain result of typed arrays.
import { attention } from './attention.js';
import { encodings } from './encodings.js';
import { extrapolation } from './extrapolation.js';
import { offset } from './offset.js';
import { similarity } from './similarity.js';

export const JOBS = { encodings, similarity, extrapolation, offset, attention };
