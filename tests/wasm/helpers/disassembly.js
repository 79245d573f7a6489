// Reads a .wasm's code with `wasm-objdump -d` (Debian's wabt) into per-function opcode
// counts, named from the module's name section or, failing that, an Emscripten symbol map.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export function objdump(file) {
  try {
    return execFileSync('wasm-objdump', ['-d', file], { maxBuffer: 1 << 30, encoding: 'utf8' });
  } catch (e) {
    if (e.code === 'ENOENT') throw new Error('wasm-objdump not found: install wabt (Debian: apt-get install wabt).');
    throw e;
  }
}

// "12:name" lines of poslab.wasm.symbols / poslab.mjs.symbols / poslab.js.symbols: the module's
// own map where there is one (a build folder holds one per module, numbered alike), else all.
function symbolMap(file) {
  const dir = path.dirname(file);
  const all = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.symbols')) : [];
  const module = path.basename(file, '.wasm');
  const own = all.filter(
    (f) => f.startsWith(`${module}.`) && /^(wasm|mjs|js)\.symbols$/.test(f.slice(module.length + 1)),
  );
  const candidates = own.length ? own : all;
  const names = new Map();
  for (const f of candidates) {
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      const m = /^(\d+):(.*)$/.exec(line);
      // Emscripten escapes punctuation in the map: \28 is '(', \20 a space.
      if (m)
        names.set(
          Number(m[1]),
          m[2].replace(/\\([0-9a-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))),
        );
    }
  }
  return names;
}

// [{ index, name, ops: Map(opcode → count) }] for every function with a body.
export function functionsOf(file) {
  const text = objdump(file);
  const functions = [];
  let current = null;
  for (const line of text.split('\n')) {
    const head = /^[0-9a-f]+ func\[(\d+)\](?: <(.*)>)?:$/.exec(line);
    if (head) {
      current = { index: Number(head[1]), name: head[2] ?? null, ops: new Map() };
      functions.push(current);
      continue;
    }
    const op = current && /\|\s*([a-z0-9_]+\.[a-z0-9_.]+|[a-z_]+)/.exec(line);
    if (op) current.ops.set(op[1], (current.ops.get(op[1]) ?? 0) + 1);
  }
  if (functions.some((f) => f.name === null)) {
    const names = symbolMap(file);
    for (const f of functions) f.name ??= names.get(f.index) ?? null;
  }
  return functions;
}

export const count = (fn, prefix) => [...fn.ops].reduce((n, [op, c]) => (op.startsWith(prefix) ? n + c : n), 0);
export const simdCount = (fn) => count(fn, 'f32x4.') + count(fn, 'v128.');
