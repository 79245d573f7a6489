// NumPy .npy (format 1.0) writer for exported matrices: little-endian float32 or int32,
// C order, header padded to a multiple of 64 bytes as numpy itself writes it.

/**
 * @param {Float32Array|Int32Array} data
 * @param {number[]} shape
 * @returns {Uint8Array}
 */
export function encodeNpy(data, shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  if (n !== data.length) throw new Error(`npy: ${data.length} values do not fill shape (${shape.join(', ')})`);
  const descr = data instanceof Int32Array ? '<i4' : data instanceof Float32Array ? '<f4' : null;
  if (!descr) throw new Error('npy: only Float32Array and Int32Array are written');
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  const unpadded = 10 + header.length + 1; // magic(6) + version(2) + length(2) + header + '\n'
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const out = new Uint8Array(10 + header.length + data.byteLength);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]); // \x93NUMPY v1.0
  new DataView(out.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i);
  // Typed arrays are in the platform's byte order; write explicitly little-endian.
  const view = new DataView(out.buffer, 10 + header.length);
  const put = data instanceof Int32Array ? 'setInt32' : 'setFloat32';
  for (let i = 0; i < data.length; i++) view[put](i * 4, data[i], true);
  return out;
}
