// Turns a freshly linked module of the relaxed variant into one engines accept: Emscripten
// 3.1.6's clang 14 writes __builtin_wasm_fma_f32x4 (src/fast/madd.hpp) as the pre-standard
// relaxed-SIMD opcode 0xfd 0xaf 0x01, which Chromium and Node refuse; the standard
// f32x4.relaxed_madd is 0xfd 0x85 0x02 (opcode 0x105, LEB128 85 02), the same length, so no
// size or offset in the module moves. Run after each link (cpp/wasm/CMakeLists.txt):
//
//   node relaxed_simd_patch.mjs WASM_DIS MODULE.wasm
//
// A byte search could also hit those three bytes inside an immediate (an i32.const 22525 is
// 41 fd af 01), so the rewrite goes function by function: binaryen (WASM_DIS, the wasm-dis of the
// binaryen Emscripten ran) counts each defined function's f32x4.relaxed_fma, and a function's
// triples are rewritten only when it holds exactly that many; a function without the
// instruction keeps its triples (immediates); any other count fails. The module must hold no
// other relaxed instruction (fms, swizzle, laneselect, min/max, trunc, q15mulr, dot), whose
// pre-standard opcodes this does not map, and at least one fma (else -mrelaxed-simd did not
// reach the kernels). Then the patched module must validate with relaxed SIMD on. Any failure
// fails the build.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import v8 from 'node:v8';

const OLD = [0xfd, 0xaf, 0x01]; // f32x4.relaxed_fma as clang 14 / binaryen 108 write it
const NEW = [0xfd, 0x85, 0x02]; // f32x4.relaxed_madd, the standard encoding
const CODE_SECTION = 10;

const fail = (message) => {
  console.error(`relaxed_simd_patch: ${message}`);
  process.exit(1);
};

/** An unsigned LEB128 at `at`: [value, the offset after it]. */
function leb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (!(b & 0x80)) return [value, at];
  }
}

/** [start, end) of each function body of the code section, in order, from the size prefixes. */
function functionBodies(bytes) {
  let at = 8; // magic and version
  while (at < bytes.length) {
    const id = bytes[at];
    const [size, start] = leb(bytes, at + 1);
    if (id === CODE_SECTION) {
      let [count, body] = leb(bytes, start);
      const bodies = [];
      for (; count > 0; count--) {
        const [length, from] = leb(bytes, body);
        bodies.push([from, from + length]);
        body = from + length;
      }
      if (body !== start + size) fail("the code section's bodies do not fill it");
      return bodies;
    }
    at = start + size;
  }
  return fail('no code section');
}

/** Offsets of OLD within [start, end). */
function triples(bytes, start, end) {
  const at = [];
  for (let i = start; i + 2 < end; i++) {
    if (bytes[i] === OLD[0] && bytes[i + 1] === OLD[1] && bytes[i + 2] === OLD[2]) at.push(i);
  }
  return at;
}

const [wasmDis, file] = process.argv.slice(2);
if (!wasmDis || !file) fail('usage: node relaxed_simd_patch.mjs WASM_DIS MODULE.wasm');
const bytes = fs.readFileSync(file);

const text = execFileSync(wasmDis, [file], { maxBuffer: 1 << 30, encoding: 'utf8' });
const relaxed = new Map();
for (const [op] of text.matchAll(/\b[a-z0-9]+x[0-9]+\.relaxed_[a-z0-9_]+|\b[a-z0-9]+x[0-9]+\.laneselect\b/g)) {
  relaxed.set(op, (relaxed.get(op) ?? 0) + 1);
}
const fma = relaxed.get('f32x4.relaxed_fma') ?? 0;
relaxed.delete('f32x4.relaxed_fma');
if (relaxed.size) fail(`${file}: relaxed instructions this patch does not map: ${[...relaxed.keys()].join(', ')}`);
if (fma === 0) fail(`${file}: no f32x4.relaxed_fma: was it compiled with -mrelaxed-simd -DPOSLAB_RELAXED_SIMD?`);

// wasm-dis prints the defined functions in the code section's order, each from a line " (func".
const fmaByFunction = text
  .split(/^ \(func /m)
  .slice(1)
  .map((body) => (body.match(/\bf32x4\.relaxed_fma\b/g) ?? []).length);
const bodies = functionBodies(bytes);
if (fmaByFunction.length !== bodies.length) {
  fail(`${file}: wasm-dis prints ${fmaByFunction.length} functions, the code section holds ${bodies.length}`);
}
let patched = 0;
bodies.forEach(([start, end], f) => {
  if (fmaByFunction[f] === 0) return; // any triples are immediates
  const offsets = triples(bytes, start, end);
  if (offsets.length !== fmaByFunction[f]) {
    fail(
      `${file}: function ${f} holds ${offsets.length} byte triples ${OLD.map((b) => b.toString(16))} but ` +
        `wasm-dis decodes ${fmaByFunction[f]} f32x4.relaxed_fma in it: some are inside immediates, so a ` +
        `byte rewrite is unsafe`,
    );
  }
  for (const i of offsets) bytes.set(NEW, i);
  patched += offsets.length;
});
if (patched !== fma) fail(`${file}: rewrote ${patched} triples for ${fma} f32x4.relaxed_fma`);

// Node 20 has relaxed SIMD behind this flag (Node 22 on by default; an unknown flag is ignored).
v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
if (!WebAssembly.validate(bytes)) fail(`${file}: the patched module does not validate with relaxed SIMD on`);

const tmp = `${file}.${process.pid}.tmp`;
fs.writeFileSync(tmp, bytes);
fs.renameSync(tmp, file);
console.log(`relaxed_simd_patch: ${file}: ${fma} f32x4.relaxed_fma rewritten to f32x4.relaxed_madd`);
