// RoPE rotation, frequencies (+ attention factor), decay and wavelengths vs the native CLI.
import { ROPE_CASES } from './cases/rope.js';
import { compareWithNative } from './helpers/native_suite.js';

compareWithNative('rope', ROPE_CASES);
