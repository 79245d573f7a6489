// Checks of JS arguments before they reach the wasm module. embind silently turns NaN into 0
// and 3.7 into 3, and a wrong type surfaces as an obscure binding error, so types, integers,
// finiteness, ranks and sizes are checked here; ranges that depend on the formula (even D,
// valid scalings, ...) are left to the core, whose messages then come through unchanged.
// Every check throws a PosLabError whose `field` is the argument or option it checked: the
// `name` it was given, or `field` where the name is a path inside one ('x.shape[0]' → 'x').
import { PosLabError } from './errors.js';

const fail = (message, field) => {
  throw new PosLabError(message, { field });
};

const show = (value) => {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  return Array.isArray(value) ? 'an array' : `a ${value?.constructor?.name ?? typeof value}`;
};

/**
 * An options object (undefined → {}); unknown keys are refused so typos do not pass silently
 * (field: the unknown key). `field` names a nested options object ('rope', 't5').
 */
export function options(value, name, allowed, field) {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    fail(`${name} options must be an object (got ${show(value)})`, field);
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      fail(`unknown option '${key}' for ${name} (expected ${allowed.join(', ')})`, key);
    }
  }
  return value;
}

export function number(value, name, field = name) {
  if (value === undefined) fail(`${name} is required (a number)`, field);
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    fail(`${name} must be a finite number (got ${show(value)})`, field);
  }
  return value;
}

/** An integer, ≥ min (0 by default: sizes, offsets, distances). */
export function integer(value, name, min = 0, field = name) {
  if (value === undefined) fail(`${name} is required (an integer)`, field);
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    fail(`${name} must be an integer (got ${show(value)})`, field);
  }
  if (value < min) {
    fail(`${name} must be ${min === 0 ? 'non-negative' : `at least ${min}`} (got ${value})`, field);
  }
  if (!Number.isSafeInteger(value)) fail(`${name} ${value} is too large`, field);
  return value;
}

/** A size: a non-negative integer no larger than the element cap. */
export function size(value, name, maxElements, field = name) {
  integer(value, name, 0, field);
  if (value > maxElements) fail(`${name} ${value} is too large (limit ${maxElements})`, field);
  return value;
}

export function boolean(value, name) {
  if (typeof value !== 'boolean') fail(`${name} must be true or false (got ${show(value)})`, name);
  return value;
}

export function string(value, name) {
  if (typeof value !== 'string') fail(`${name} must be a string (got ${show(value)})`, name);
  return value;
}

/**
 * Refuses a tensor of `shape` over the cap, in the core's words (tensor.cpp checked_numel).
 * `field`: the argument the tensor is, when it is one (a result's size is about no one option).
 */
export function elements(shape, what, maxElements, field) {
  const n = shape.reduce((a, b) => a * b, 1);
  if (n > maxElements) {
    const dims = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
    fail(`${what} ${dims} would have ${n} elements; the limit is ${maxElements}`, field);
  }
  return n;
}

/**
 * { data: Float32Array | number[], shape: number[] } → { data: Float32Array, shape }.
 * `ranks` lists the accepted numbers of axes; `negInf` lets −∞ through (a bias hides a key).
 */
export function tensor(value, name, { ranks, maxElements, negInf = false }) {
  if (value === null || typeof value !== 'object' || !('data' in value) || !('shape' in value)) {
    fail(`${name} must be a tensor { data, shape } (got ${show(value)})`, name);
  }
  const { shape } = value;
  if (!Array.isArray(shape)) fail(`${name}.shape must be an array of sizes (got ${show(shape)})`, name);
  shape.forEach((d, i) => size(d, `${name}.shape[${i}]`, maxElements, name));
  if (ranks && !ranks.includes(shape.length)) {
    const want = ranks.map((r) => `${r}-D`).join(' or ');
    fail(`${name} must be ${want}, got shape (${shape.join(', ')})`, name);
  }
  const n = elements(shape, name, maxElements, name);
  const { data } = value;
  if (!(data instanceof Float32Array || Array.isArray(data))) {
    fail(`${name}.data must be a Float32Array or an array of numbers (got ${show(data)})`, name);
  }
  if (data.length !== n) {
    fail(`${name}.data has ${data.length} elements but its shape (${shape.join(', ')}) needs ${n}`, name);
  }
  const bad = firstNonFinite(data, negInf);
  if (bad >= 0) {
    const allowed = negInf ? 'a finite number or -Infinity' : 'a finite number';
    fail(`${name}.data[${bad}] must be ${allowed} (got ${show(data[bad])})`, name);
  }
  // A number[] element past float32's range would reach the core as ±∞: name the value given.
  const f32 = data instanceof Float32Array ? data : Float32Array.from(data);
  const past = f32 === data ? -1 : firstNonFinite(f32, negInf);
  if (past >= 0) fail(`${name}.data[${past}] = ${data[past]} is outside float32's range (±3.4e38)`, name);
  return { data: f32, shape: shape.slice() };
}

// Index of the first element that is not a finite number (−∞ allowed if negInf), or −1.
// x − x is 0 exactly for finite x: one subtraction per element keeps this loop at memory
// speed on the large tensors of attention and RoPE.
function firstNonFinite(data, negInf) {
  if (data instanceof Float32Array) {
    for (let i = 0; i < data.length; i++) {
      const x = data[i];
      if (x - x !== 0 && !(negInf && x === -Infinity)) return i;
    }
    return -1;
  }
  for (let i = 0; i < data.length; i++) {
    const x = data[i];
    if (typeof x !== 'number' || (x - x !== 0 && !(negInf && x === -Infinity))) return i;
  }
  return -1;
}

/** A per-feature vector (γ, β): a tensor, a Float32Array or a number[] → a 1-D tensor. */
export function vector(value, name, maxElements) {
  const isTensor = value !== null && typeof value === 'object' && 'shape' in value;
  const t = isTensor ? value : { data: value, shape: [value?.length ?? -1] };
  if (!isTensor && !(Array.isArray(value) || value instanceof Float32Array)) {
    fail(`${name} must be a Float32Array, an array of numbers or a tensor (got ${show(value)})`, name);
  }
  return tensor(t, name, { ranks: [1], maxElements });
}

/**
 * Flags (key padding (Lk,), a custom mask (Lq·Lk)): Uint8Array | boolean[] | number[],
 * nonzero/true = hidden → Uint8Array.
 */
export function padding(value, name, maxElements) {
  if (!(value instanceof Uint8Array || Array.isArray(value))) {
    fail(`${name} must be a Uint8Array, boolean[] or number[] (got ${show(value)})`, name);
  }
  size(value.length, `${name}.length`, maxElements, name);
  const out = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const x = value[i];
    if (typeof x === 'boolean') out[i] = x ? 1 : 0;
    else if (typeof x === 'number' && Number.isFinite(x)) out[i] = x !== 0 ? 1 : 0;
    else fail(`${name}[${i}] must be a boolean or a finite number (got ${show(x)})`, name);
  }
  return out;
}

/**
 * Attention mask: 'none' | 'causal' | 'window:W' | { window: W } → the core's string form.
 * A bad W names the field 'window' (as the core does for 'window:0'), anything else 'mask'.
 */
export function attentionMask(value, name = 'mask') {
  if (typeof value === 'string') return value; // the core parses it and names what is wrong
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    options(value, name, ['window'], name);
    if (value.window === undefined) fail(`${name}.window is required (an integer)`, name);
    return `window:${integer(value.window, `${name}.window`, 1, 'window')}`;
  }
  fail(`${name} must be 'none', 'causal', 'window:W' or { window: W } (got ${show(value)})`, name);
}
