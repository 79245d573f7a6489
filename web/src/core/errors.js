// The one error type of the JS API: every bad input, whether the wrapper or the C++ core
// detects it, is thrown as a PosLabError whose message says what is wrong and why.
export class PosLabError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'PosLabError';
  }
}
