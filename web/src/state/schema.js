// Every control of the playground, keyed by its name in the URL hash. The defaults
// reproduce the seed figures (see content/gallery.js): view 1 is seed 002's 50×512 viridis
// table, view 2 seed 001's 300×512 cosine similarity, view 3 seed 000's 50 vs 100 at D=64.
import { bool, int, intList, num, oneOf, text, token } from './types.js';

export const VIEWS = ['encodings', 'similarity', 'extrapolation', 'offset', 'attention', 'gallery', 'gpt2'];
export const METHODS = ['sinusoidal', 'learned', 'rope', 'alibi', 't5', 'shaw', 'nope'];
export const VECTOR_METHODS = ['sinusoidal', 'learned', 'rope', 'nope'];
export const CMAPS = ['viridis', 'Blues', 'RdBu'];
export const SCALINGS = ['none', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3'];
export const MASKS = ['none', 'causal', 'window', 'custom'];
export const GPT2_POSITIONS = ['learned', 'sinusoidal', 'rope', 'alibi', 'none'];
export const GPT2_INITS = ['mini', 'small'];

// Custom attention mask: "<L>.<base64url bits, row-major, query × key, 1 = hidden>".
export const CUSTOM_MASK_RE = /^$|^[1-9]\d{0,1}\.[A-Za-z0-9_-]{1,700}$/;

export const SCHEMA = {
  view: oneOf(VIEWS, 'encodings'),
  theme: oneOf(['auto', 'light', 'dark'], 'auto'),

  // 1. Encodings
  'enc.method': oneOf(METHODS, 'sinusoidal'),
  'enc.L': int(50, 1, 8192),
  'enc.D': int(512, 2, 4096),
  'enc.base': num(10000, 1.0001, 1e9),
  'enc.layout': oneOf(['interleaved', 'concat'], 'interleaved'),
  'enc.style': oneOf(['neox', 'gptj'], 'neox'),
  'enc.heads': int(8, 1, 64),
  'enc.head': int(0, 0, 63),
  'enc.buckets': int(32, 2, 1024),
  'enc.maxdist': int(128, 1, 65536),
  'enc.bidir': bool(true),
  'enc.clip': int(4, 0, 8192),
  'enc.seed': int(0, 0, 2147483647),
  'enc.pos': intList([0, 1, 2, 10, 25, 49], 0, 65535, 16),
  'enc.dims': intList([0, 2, 8, 32], 0, 65535, 16),
  'enc.cmap': oneOf(CMAPS, 'viridis'),

  // 2. Similarity
  'sim.method': oneOf(VECTOR_METHODS, 'sinusoidal'),
  'sim.L': int(300, 1, 4096),
  'sim.D': int(512, 2, 4096),
  'sim.base': num(10000, 1.0001, 1e9),
  'sim.layout': oneOf(['interleaved', 'concat'], 'interleaved'),
  'sim.style': oneOf(['neox', 'gptj'], 'neox'),
  'sim.metric': oneOf(['cosine', 'dot'], 'cosine'),
  'sim.seed': int(0, 0, 2147483647),
  'sim.cmap': oneOf(CMAPS, 'Blues'),

  // 3. Out-of-scope lengths
  'ext.N': int(50, 1, 4096),
  'ext.L': int(100, 1, 4096),
  'ext.D': int(64, 2, 1024),
  'ext.base': num(10000, 1.0001, 1e9),
  'ext.scaling': oneOf(SCALINGS, 'yarn'),
  'ext.factor': num(2, 1, 1024),
  'ext.lowff': num(1, 0.001, 1000),
  'ext.highff': num(4, 0.001, 1000),
  'ext.bfast': num(32, 0.001, 1e6),
  'ext.bslow': num(1, 0.001, 1e6),
  'ext.cmap': oneOf(CMAPS, 'viridis'),

  // 4. Offset matrix
  'off.D': int(16, 2, 1024),
  'off.k': int(3, -65536, 65536),
  'off.p': int(10, 0, 65536),
  'off.base': num(10000, 1.0001, 1e9),

  // 5. Attention & masks
  'att.text': text('the quick brown fox jumps over the lazy dog [PAD] [PAD]', 400),
  'att.input': oneOf(['tokens', 'position'], 'tokens'),
  'att.pe': oneOf(['sinusoidal', 'learned', 'none'], 'sinusoidal'),
  'att.rope': bool(false),
  'att.bias': oneOf(['none', 'alibi', 't5'], 'none'),
  'att.mask': oneOf(MASKS, 'causal'),
  'att.window': int(3, 1, 64),
  'att.pad': bool(true),
  'att.custom': token('', CUSTOM_MASK_RE, 704),
  'att.D': int(64, 2, 1024),
  'att.H': int(4, 1, 16),
  'att.head': int(0, 0, 15),
  'att.seed': int(0, 0, 2147483647),
  'att.cmap': oneOf(CMAPS, 'viridis'),

  // 7. GPT-2 (a loaded checkpoint is not part of the link: the file stays on the machine)
  'gpt.text': text('The cat sat on the mat because it was warm', 2000),
  'gpt.position': oneOf(GPT2_POSITIONS, 'learned'),
  'gpt.layer': int(0, 0, 47),
  'gpt.head': int(0, 0, 31),
  'gpt.init': oneOf(GPT2_INITS, 'mini'),
};

/** A fresh copy of every default (lists copied so callers may not share them). */
export function defaults() {
  const out = {};
  for (const [key, type] of Object.entries(SCHEMA)) {
    out[key] = Array.isArray(type.def) ? [...type.def] : type.def;
  }
  return out;
}
