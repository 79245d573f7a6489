// The suite's own tools: the tolerance check must catch what it is meant to catch, and the
// .npy reader/writer must round-trip every dtype exchanged with the CLI.
import { describe, expect, test } from 'vitest';
import { assertClose, assertScalarClose } from './helpers/compare.js';
import { formatNpy, parseNpy } from './helpers/npy.js';

const f32 = (data, shape = [data.length]) => ({ data: Float32Array.from(data), shape });

describe('assertClose', () => {
  test('accepts differences within 1e-6 + 1e-6·|native|', () => {
    expect(() => assertClose(f32([1 + 1.9e-6, 0.5e-6, 1000.0009]), f32([1, 0, 1000]))).not.toThrow();
  });

  test('rejects a difference just past the bound and names the worst element', () => {
    expect(() => assertClose(f32([0, 0, 0, 3e-6], [2, 2]), f32([0, 0, 0, 0], [2, 2]))).toThrow(/worst at \[1, 1\]/);
  });

  test('NaN never matches a number, −∞ only matches −∞', () => {
    expect(() => assertClose(f32([NaN]), f32([0]))).toThrow(/out of tolerance/);
    expect(() => assertClose(f32([-Infinity]), f32([-1e30]))).toThrow(/out of tolerance/);
    expect(() => assertClose(f32([-Infinity]), f32([-Infinity]))).not.toThrow();
  });

  test('integers must match exactly and keep their dtype', () => {
    const ints = { data: Int32Array.from([1, 2]), shape: [2] };
    expect(() => assertClose({ data: Int32Array.from([1, 3]), shape: [2] }, ints)).toThrow();
    expect(() => assertClose(f32([1, 2]), ints)).toThrow(/dtype/);
  });

  test('shapes must match', () => {
    expect(() => assertClose(f32([1, 2, 3, 4], [4]), f32([1, 2, 3, 4], [2, 2]))).toThrow(/shape/);
    expect(() => assertClose(undefined, f32([1]))).toThrow(/tensor/);
  });

  test('scalars follow the same bound', () => {
    expect(() => assertScalarClose(1.0000015, 1)).not.toThrow();
    expect(() => assertScalarClose(1.000003, 1)).toThrow();
  });
});

describe('npy', () => {
  test.each([
    ['float32', Float32Array.from([1.5, -Infinity, 3e-8, 0]), [2, 2]],
    ['int32', Int32Array.from([-7, 2 ** 31 - 1, 0]), [3]],
    ['uint8', Uint8Array.from([0, 1, 255, 1, 0, 0]), [1, 2, 3]],
  ])('%s round-trips with its shape', (name, data, shape) => {
    const bytes = formatNpy({ data, shape });
    expect((bytes.length - data.byteLength) % 64).toBe(0); // data starts 64-byte aligned
    const back = parseNpy(bytes);
    expect(back.shape).toEqual(shape);
    expect(back.data).toEqual(data);
  });
});
