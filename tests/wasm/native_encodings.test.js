// Sinusoidal, learned, Shaw, T5 buckets and ALiBi: wasm (SIMD and scalar) vs the native CLI.
import { ENCODING_CASES } from './cases/encodings.js';
import { compareWithNative } from './helpers/native_suite.js';

compareWithNative('encodings', ENCODING_CASES);
