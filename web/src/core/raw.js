// The boundary between the JS API and an embind module: whatever comes back from or is thrown
// by a raw call reaches the caller as a PosLabError. The bindings report bad input as
// { error, field? } (cpp/wasm/guard.hpp); embind itself throws a BindingError when a call's arity or a
// handle is wrong, a trap is a WebAssembly.RuntimeError, and an exception the bindings missed
// arrives as a bare number.
import { PosLabError } from './errors.js';

/** A raw binding's result, or its { error, field? } thrown as a PosLabError with that field. */
export function unwrap(result) {
  if (result !== null && typeof result === 'object' && result.error !== undefined) {
    throw new PosLabError(result.error, { field: result.field });
  }
  return result;
}

/** What a call named `label` threw, as a PosLabError (a PosLabError is passed through). */
export function toPosLabError(label, cause) {
  if (cause instanceof PosLabError) return cause;
  let why;
  if (typeof cause === 'number') {
    why = 'the PosLab core let a C++ exception escape (a bug: please report it with the input)';
  } else if (cause?.name === 'BindingError') {
    why = `the JS API and the wasm module disagree on this call (${cause.message}): rebuild the module`;
  } else if (cause instanceof WebAssembly.RuntimeError) {
    why = `the wasm module trapped (${cause.message}); reload it`;
  } else {
    why = cause?.message ?? String(cause);
  }
  return new PosLabError(`${label}: ${why}`, { cause });
}

/**
 * `api` with every method wrapped: more arguments than the method declares (fn.length) are
 * refused, and anything it throws becomes a PosLabError. Other properties are kept as they are.
 */
export function guardMethods(api) {
  const out = {};
  for (const [name, value] of Object.entries(api)) {
    if (typeof value !== 'function') {
      out[name] = value;
      continue;
    }
    const max = value.length;
    const method = (...args) => {
      if (args.length > max) {
        const s = max === 1 ? '' : 's';
        throw new PosLabError(`${name} takes at most ${max} argument${s}, got ${args.length}`);
      }
      try {
        return value(...args);
      } catch (cause) {
        throw toPosLabError(name, cause);
      }
    };
    out[name] = Object.defineProperty(method, 'length', { value: max });
  }
  return out;
}
