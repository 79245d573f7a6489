// Every native-vs-wasm case, for the global setup that generates their reference outputs.
import { ANALYSIS_CASES } from './analysis.js';
import { ATTENTION_CASES } from './attention.js';
import { ENCODING_CASES } from './encodings.js';
import { ROPE_CASES } from './rope.js';

export const ALL_CASES = [...ENCODING_CASES, ...ROPE_CASES, ...ATTENTION_CASES, ...ANALYSIS_CASES];
