// Minimal .npy (format 1.0/2.0) reader and writer for the dtypes the suite exchanges with
// the native CLI: float32, int32, uint8 (and bool read as uint8), C order, little-endian; the
// reader also takes float64 and int64 (BigInt64Array), as NumPy writes the fixtures'.
import fs from 'node:fs';

const MAGIC = '\x93NUMPY';
const DTYPES = {
  '<f4': Float32Array,
  '<f8': Float64Array,
  '<i8': BigInt64Array,
  '<i4': Int32Array,
  '|u1': Uint8Array,
  '|b1': Uint8Array,
};
const DESCR = new Map([
  [Float32Array, '<f4'],
  [Int32Array, '<i4'],
  [Uint8Array, '|u1'],
]);

export function parseNpy(bytes) {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.toString('latin1', 0, 6) !== MAGIC) throw new Error('not an .npy file');
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  const Type = DTYPES[descr];
  if (!Type) throw new Error(`unsupported npy dtype ${descr}`);
  if (fortran !== 'False') throw new Error('Fortran-order npy is not supported');
  const shape = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map(Number);
  const count = shape.reduce((a, b) => a * b, 1);
  const offset = start + headerLen;
  // Copy so the typed array is aligned and owns its memory.
  const data = new Type(count);
  new Uint8Array(data.buffer).set(buf.subarray(offset, offset + count * Type.BYTES_PER_ELEMENT));
  return { data, shape, dtype: descr === '|b1' ? '|u1' : descr };
}

export const readNpy = (file) => parseNpy(fs.readFileSync(file));

export function formatNpy({ data, shape }) {
  const descr = DESCR.get(data.constructor);
  if (!descr) throw new Error(`cannot write ${data.constructor.name} as npy`);
  const count = shape.reduce((a, b) => a * b, 1);
  if (count !== data.length) throw new Error(`shape ${shape} does not hold ${data.length} values`);
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  // Pad so that the data starts on a 64-byte boundary, as numpy does.
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header.padEnd(total - 10 - 1, ' ') + '\n';
  const head = Buffer.alloc(10);
  head.write(MAGIC, 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), body]);
}

export const writeNpy = (file, tensor) => fs.writeFileSync(file, formatNpy(tensor));
