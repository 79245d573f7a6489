// LayerNorm/RMSNorm, similarity, offset matrices and wavelengths vs the native CLI.
import { ANALYSIS_CASES } from './cases/analysis.js';
import { compareWithNative } from './helpers/native_suite.js';

compareWithNative('norms and analysis', ANALYSIS_CASES);
