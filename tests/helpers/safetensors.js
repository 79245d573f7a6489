// Test fixtures in Hugging Face's .safetensors format: a writer (8-byte little-endian header
// length, JSON header padded to 8 bytes, then the data buffer), float32 → half rounding, and
// a tiny GPT-2 checkpoint with seeded values. Shared by the wasm suite (Node) and the
// browser tests, which write the file the page's file input then reads.
import { uniform } from '../wasm/helpers/prng.js';

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

/**
 * The bytes of a .safetensors file.
 * @param {Array<{ name: string, shape: number[], data: Float32Array, dtype?: 'F32'|'F16'|string }>} tensors
 * @param {{ headerOverride?: (header: object) => void }} [options] edit the header (bad-file tests)
 */
export function encodeSafetensors(tensors, { headerOverride } = {}) {
  const header = {};
  const buffers = [];
  let offset = 0;
  for (const t of tensors) {
    const dtype = t.dtype ?? 'F32';
    const bytes =
      dtype === 'F16'
        ? new Uint8Array(Uint16Array.from(t.data, toHalf).buffer)
        : new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    header[t.name] = { dtype, shape: t.shape, data_offsets: [offset, offset + bytes.length] };
    buffers.push(bytes);
    offset += bytes.length;
  }
  headerOverride?.(header);
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const json = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const b of buffers) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

/** The tensors of a GPT-2 with `config` (HF keys), uniform values in ±0.2 around their role's centre. */
export function tinyGpt2Tensors(config, seed = 1, dtype = 'F32') {
  const { vocab_size: V, n_positions: P, n_embd: E, n_layer: N } = config;
  const next = uniform(seed);
  const tensors = [];
  const put = (name, shape, centre = 0, spread = 0.2) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = centre + spread * (2 * next() - 1);
    tensors.push({ name, shape, data, dtype });
  };
  put('wte.weight', [V, E]);
  put('wpe.weight', [P, E]);
  for (let l = 0; l < N; l++) {
    const h = `h.${l}.`;
    put(h + 'ln_1.weight', [E], 1);
    put(h + 'ln_1.bias', [E]);
    put(h + 'attn.c_attn.weight', [E, 3 * E]);
    put(h + 'attn.c_attn.bias', [3 * E]);
    put(h + 'attn.c_proj.weight', [E, E]);
    put(h + 'attn.c_proj.bias', [E]);
    put(h + 'ln_2.weight', [E], 1);
    put(h + 'ln_2.bias', [E]);
    put(h + 'mlp.c_fc.weight', [E, 4 * E]);
    put(h + 'mlp.c_fc.bias', [4 * E]);
    put(h + 'mlp.c_proj.weight', [4 * E, E], 0, 0.15);
    put(h + 'mlp.c_proj.bias', [E]);
  }
  put('ln_f.weight', [E], 1);
  put('ln_f.bias', [E]);
  return tensors;
}
