// Attention outputs and weights (masks, padding, bias, scale, Lq ≠ Lk) vs the native CLI.
import { ATTENTION_CASES } from './cases/attention.js';
import { compareWithNative } from './helpers/native_suite.js';

compareWithNative('attention', ATTENTION_CASES);
