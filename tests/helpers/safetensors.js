// Test fixtures in Hugging Face's .safetensors format: a writer (8-byte little-endian header
// length, JSON header padded to 8 bytes, then the data buffer), float32 → half rounding, and
// tiny checkpoints with seeded values. Shared by the wasm suite (Node) and the browser tests,
// which write the file the page's file input then reads; the header writer also serves the
// scripts that stream large checkpoints (hub timing, wasm benchmarks).
import { uniform } from '../wasm/helpers/prng.js';
import { gpt2Layout, sizeOf } from './model-layouts.js';

/** Half-precision bits of a float32, rounded to nearest even (overflow → ±infinity). */
export function toHalf(value) {
  const f = new Float32Array([value]);
  const x = new Uint32Array(f.buffer)[0];
  const sign = (x >>> 16) & 0x8000;
  const abs = x & 0x7fffffff;
  if (abs >= 0x7f800000) return sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 : 0);
  if (abs >= 0x477ff000) return sign | 0x7c00;
  if (abs < 0x38800000) {
    if (abs < 0x33000000) return sign;
    const shift = 126 - (abs >>> 23);
    const m = (abs & 0x7fffff) | 0x800000;
    let half = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && half & 1)) half++;
    return sign | half;
  }
  let half = (abs >>> 13) - (112 << 10);
  const rest = abs & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
  return sign | half;
}

/** bfloat16 bits of a float32: its upper half, rounded to nearest even (NaN kept a NaN). */
export function toBfloat16(value) {
  const x = new Uint32Array(new Float32Array([value]).buffer)[0];
  if ((x & 0x7fffffff) > 0x7f800000) return (x >>> 16) | 0x40;
  return (x + 0x7fff + ((x >>> 16) & 1)) >>> 16;
}

const ENCODERS = { F16: toHalf, BF16: toBfloat16 };

/**
 * The bytes of a .safetensors file.
 * @param {Array<{ name: string, shape: number[], data: Float32Array, dtype?: 'F32'|'F16'|'BF16'|string }>} tensors
 * @param {{ headerOverride?: (header: object) => void }} [options] edit the header (bad-file tests)
 */
export function encodeSafetensors(tensors, { headerOverride } = {}) {
  const buffers = tensors.map((t) => {
    const half = ENCODERS[t.dtype ?? 'F32'];
    return half
      ? new Uint8Array(Uint16Array.from(t.data, half).buffer)
      : new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  });
  const entries = tensors.map((t, i) => ({ ...t, dtype: t.dtype ?? 'F32', bytes: buffers[i].length }));
  const { bytes, data } = safetensorsBuffer(entries, headerOverride);
  let at = 0;
  for (const b of buffers) {
    data.set(b, at);
    at += b.length;
  }
  return bytes;
}

/**
 * The start of a .safetensors file whose tensors lie end to end in `entries`' order: the
 * 8-byte length and the padded JSON header (`prefix`), the header object (for the tensors'
 * data_offsets) and how many data bytes follow.
 * @param {Array<{ name: string, dtype: string, shape: number[], bytes: number }>} entries
 * @param {(header: object) => void} [headerOverride] edits the header before it is written
 */
export function safetensorsHeader(entries, headerOverride) {
  const header = {};
  let offset = 0;
  for (const { name, dtype, shape, bytes } of entries) {
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  headerOverride?.(header);
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const json = new TextEncoder().encode(text);
  const prefix = new Uint8Array(8 + json.length);
  new DataView(prefix.buffer).setBigUint64(0, BigInt(json.length), true);
  prefix.set(json, 8);
  return { prefix, header, dataBytes: offset };
}

/**
 * A whole .safetensors file for `entries` with its data still zero: the file's `bytes`, the
 * `data` part of them to fill, and the header object (safetensorsHeader).
 */
export function safetensorsBuffer(entries, headerOverride) {
  const { prefix, header, dataBytes } = safetensorsHeader(entries, headerOverride);
  const bytes = new Uint8Array(prefix.length + dataBytes);
  bytes.set(prefix);
  return { bytes, data: bytes.subarray(prefix.length), header };
}

/** The header entries of a layout (model-layouts.js) stored whole in one dtype, F32 or F16. */
export function layoutEntries(layout, dtype = 'F32') {
  const itemBytes = { F32: 4, F16: 2 }[dtype];
  return layout.map((t) => ({ ...t, dtype, bytes: itemBytes * sizeOf(t.shape) }));
}

/**
 * Seeded tensors for a layout (model-layouts.js): uniform in ±0.2 around their role's centre
 * (1 for LayerNorm gains), ±0.15 for the MLP's output projection.
 */
export function seededTensors(layout, seed, dtype) {
  const next = uniform(seed);
  return layout.map(({ name, shape, role }) => {
    const centre = role === 'gain' ? 1 : 0;
    const spread = role === 'mlpOut' ? 0.15 : 0.2;
    const data = new Float32Array(sizeOf(shape));
    for (let i = 0; i < data.length; i++) data[i] = centre + spread * (2 * next() - 1);
    return { name, shape, data, dtype };
  });
}

/** The tensors of a GPT-2 with `config` (HF keys), seeded (seededTensors). */
export function tinyGpt2Tensors(config, seed = 1, dtype = 'F32') {
  return seededTensors(gpt2Layout(config), seed, dtype);
}

/**
 * A .safetensors file's bytes split as save_pretrained shards a checkpoint: `count` files
 * (model-0000k-of-0000n.safetensors) holding its tensors in order, each with its bytes as
 * stored, and model.safetensors.index.json's text naming the shard of every tensor.
 * @returns {{ index: string, shards: { name: string, bytes: Uint8Array }[] }}
 */
export function shardSafetensors(bytes, count) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const names = Object.keys(header).filter((k) => k !== '__metadata__');
  const per = Math.ceil(names.length / count);
  const pad = (k) => String(k).padStart(5, '0');
  const weightMap = {};
  const shards = [];
  for (let k = 0; k < count; k++) {
    const name = `model-${pad(k + 1)}-of-${pad(count)}.safetensors`;
    const part = names.slice(k * per, (k + 1) * per);
    const entries = part.map((t) => {
      const [lo, hi] = header[t].data_offsets;
      return { name: t, dtype: header[t].dtype, shape: header[t].shape, bytes: hi - lo, lo };
    });
    const file = safetensorsBuffer(entries);
    let at = 0;
    for (const e of entries) {
      file.data.set(bytes.subarray(8 + n + e.lo, 8 + n + e.lo + e.bytes), at);
      at += e.bytes;
      weightMap[e.name] = name;
    }
    shards.push({ name, bytes: file.bytes });
  }
  const total = shards.reduce((s, f) => s + f.bytes.length, 0);
  return { index: JSON.stringify({ metadata: { total_size: total }, weight_map: weightMap }, null, 2), shards };
}
