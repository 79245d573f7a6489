// The one error type of the JS API: every bad input, whether the wrapper or the C++ core
// detects it, is thrown as a PosLabError whose message says what is wrong and why, and whose
// `field` names the option or argument at fault (the JS option name: 'lowFreqFactor', 'q'),
// or is undefined when the error is about no single one.
export class PosLabError extends Error {
  /** @param {string} message @param {{ field?: string, cause?: unknown }} [options] */
  constructor(message, options) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PosLabError';
    this.field = options?.field;
  }
}
