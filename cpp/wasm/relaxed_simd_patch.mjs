// Turns a freshly linked module of the relaxed variant into one engines accept: Emscripten
// 3.1.6's clang 14 writes __builtin_wasm_fma_f32x4 (src/fast/madd.hpp) as the pre-standard
// relaxed-SIMD opcode 0xfd 0xaf 0x01, which Chromium and Node refuse; the standard
// f32x4.relaxed_madd is 0xfd 0x85 0x02 (opcode 0x105, LEB128 85 02), the same length, so no
// size or offset in the module moves. Run after each link (cpp/wasm/CMakeLists.txt):
//
//   node relaxed_simd_patch.mjs WASM_DIS MODULE.wasm
//
// A byte search could also hit those three bytes inside an immediate, so the rewrite is sound
// only when binaryen (WASM_DIS, the wasm-dis of the binaryen Emscripten ran) decodes exactly as
// many f32x4.relaxed_fma instructions as the code section holds triples, and no other relaxed
// instruction (fms, swizzle, laneselect, min/max, trunc, q15mulr, dot), whose pre-standard
// opcodes this does not map; and at least one (else -mrelaxed-simd did not reach the kernels).
// Then the patched module must validate with relaxed SIMD on. Any failure fails the build.
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

/** [start, end) of the code section's contents, from the section headers. */
function codeSection(bytes) {
  const leb = (at) => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[at++];
      value += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(b & 0x80)) return [value, at];
    }
  };
  let at = 8; // magic and version
  while (at < bytes.length) {
    const id = bytes[at];
    const [size, start] = leb(at + 1);
    if (id === CODE_SECTION) return [start, start + size];
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

const [start, end] = codeSection(bytes);
const offsets = triples(bytes, start, end);
if (offsets.length !== fma) {
  fail(
    `${file}: ${offsets.length} byte triples ${OLD.map((b) => b.toString(16))} in the code section, but ` +
      `wasm-dis decodes ${fma} f32x4.relaxed_fma: some are inside immediates, so a byte rewrite is unsafe`,
  );
}
for (const i of offsets) bytes.set(NEW, i);

// Node 20 has relaxed SIMD behind this flag (Node 22 on by default; an unknown flag is ignored).
v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
if (!WebAssembly.validate(bytes)) fail(`${file}: the patched module does not validate with relaxed SIMD on`);

const tmp = `${file}.${process.pid}.tmp`;
fs.writeFileSync(tmp, bytes);
fs.renameSync(tmp, file);
console.log(`relaxed_simd_patch: ${file}: ${fma} f32x4.relaxed_fma rewritten to f32x4.relaxed_madd`);
