// Exported files: .npy headers and bytes, CSV quoting, exact number formatting.
import { describe, expect, it } from 'vitest';
import { categoryCsv, matrixCsv, quote, seriesCsv } from '../../web/src/export/csv.js';
import { encodeNpy } from '../../web/src/export/npy.js';
import { formatExact, formatShort } from '../../web/src/plots/format.js';

// A minimal .npy reader, written from the format description, to check the writer.
function readNpy(bytes) {
  expect(Array.from(bytes.slice(0, 8))).toEqual([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  const len = bytes[8] | (bytes[9] << 8);
  const header = String.fromCharCode(...bytes.slice(10, 10 + len));
  expect((10 + len) % 64).toBe(0);
  expect(header.endsWith('\n')).toBe(true);
  const descr = /'descr': '([^']+)'/.exec(header)[1];
  const shape = /'shape': \(([^)]*)\)/
    .exec(header)[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  expect(header).toContain("'fortran_order': False");
  const view = new DataView(bytes.buffer, bytes.byteOffset + 10 + len);
  const n = shape.reduce((a, b) => a * b, 1);
  const data = Array.from({ length: n }, (_, i) =>
    descr === '<i4' ? view.getInt32(i * 4, true) : view.getFloat32(i * 4, true),
  );
  return { descr, shape, data };
}

describe('exports', () => {
  it('Npy.Float32MatrixRoundTrips', () => {
    const data = new Float32Array([1.5, -2, NaN, -Infinity, 0.1, 7]);
    const r = readNpy(encodeNpy(data, [2, 3]));
    expect(r.descr).toBe('<f4');
    expect(r.shape).toEqual([2, 3]);
    expect(r.data.slice(0, 2)).toEqual([1.5, -2]);
    expect(Number.isNaN(r.data[2])).toBe(true);
    expect(r.data[3]).toBe(-Infinity);
    expect(r.data[4]).toBe(Math.fround(0.1));
  });

  it('Npy.Int32AndOneDimensional', () => {
    const r = readNpy(encodeNpy(new Int32Array([3, -4, 5]), [3]));
    expect(r).toEqual({ descr: '<i4', shape: [3], data: [3, -4, 5] });
  });

  it('Npy.RefusesWrongSizesAndTypes', () => {
    expect(() => encodeNpy(new Float32Array(5), [2, 3])).toThrow(/fill/);
    expect(() => encodeNpy([1, 2], [2])).toThrow(/Float32Array/);
  });

  it('Csv.MatrixWithLabels', () => {
    const text = matrixCsv(new Float32Array([1, 0.5, -Infinity, NaN]), 2, 2, {
      rowLabels: ['a', 'b,c'],
      colLabels: ['x', 'y'],
    });
    expect(text).toBe(',x,y\na,1,0.5\n"b,c",-inf,nan\n');
  });

  it('Csv.QuotesAndDefusesFormulas', () => {
    expect(quote('plain')).toBe('plain');
    expect(quote('say "hi"')).toBe('"say ""hi"""');
    expect(quote('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(quote('+1')).toBe(`"'+1"`);
    expect(quote('line\nbreak')).toBe('"line\nbreak"');
  });

  it('Csv.SeriesShareTheXColumn', () => {
    const text = seriesCsv('position', [
      { label: 'a', x: [0, 1, 2], y: new Float32Array([1, 2, 3]) },
      { label: 'b', x: [1, 3], y: [10, 30] },
    ]);
    expect(text).toBe('position,a,b\n0,1,\n1,2,10\n2,3,\n3,,30\n');
  });

  it('Csv.Categories', () => {
    expect(categoryCsv('slope', ['head 0', 'head 1'], new Float32Array([0.5, 0.25]))).toBe(
      'category,slope\nhead 0,0.5\nhead 1,0.25\n',
    );
  });

  it('Format.ExactIsTheShortestFloat32RoundTrip', () => {
    for (const v of [0.1, 1 / 3, Math.PI, -2.5e-8, 123456.789, 1e-30, 3.4e38]) {
      const f = Math.fround(v);
      const s = formatExact(f);
      expect(Math.fround(Number(s)), s).toBe(f);
      expect(s.replace(/[-.]|e.*$/g, '').replace(/^0+/, '').length).toBeLessThanOrEqual(9);
    }
    expect(formatExact(Math.fround(0.1))).toBe('0.1');
    expect(formatExact(NaN)).toBe('NaN');
    expect(formatExact(-Infinity)).toBe('−∞');
    expect(formatExact(Infinity)).toBe('+∞');
    expect(formatExact(42)).toBe('42');
  });

  it('Format.ShortLabels', () => {
    expect(formatShort(0)).toBe('0');
    expect(formatShort(0.64981234)).toBe('0.6498');
    expect(formatShort(123456)).toBe('1.23e5');
    expect(formatShort(-0.0001)).toBe('-1e-4');
  });
});
