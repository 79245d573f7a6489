// Asserts that a call throws the wrapper's PosLabError with a readable message.
import { expect } from 'vitest';

// pattern: a RegExp, or an array of them that must all match the message.
export function expectPosLabError(PosLabError, fn, pattern) {
  let error = null;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error, 'expected the call to throw').not.toBeNull();
  // embind lets raw C++ exceptions through as numbers (heap pointers): never acceptable.
  expect(typeof error, `threw a ${typeof error}: ${String(error)}`).toBe('object');
  expect(error).toBeInstanceOf(PosLabError);
  expect(error).toBeInstanceOf(Error);
  expect(error.name).toBe('PosLabError');
  expect(error.message).toMatch(/\S/);
  expect(error.message).not.toMatch(/^\d+$/);
  for (const p of [pattern ?? []].flat()) expect(error.message).toMatch(p);
  return error;
}
