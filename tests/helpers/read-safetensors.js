// Reads the F32 tensors of a .safetensors file's bytes: { name: { data: Float32Array, shape } }
// and its __metadata__ (tests only; the page has its own streamed reader in the core).
export function readSafetensors(bytes) {
  const buf = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + n)));
  const tensors = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    if (entry.dtype !== 'F32') throw new Error(`${name}: ${entry.dtype}, not F32`);
    const [lo, hi] = entry.data_offsets;
    const copy = new Uint8Array(buf.subarray(8 + n + lo, 8 + n + hi)); // a copy (Buffer.slice shares)
    tensors[name] = { data: new Float32Array(copy.buffer), shape: entry.shape };
  }
  return { tensors, metadata: header.__metadata__ ?? {} };
}
