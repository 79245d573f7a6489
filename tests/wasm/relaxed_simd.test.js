// The relaxed variant (build/wasm/simd/relaxed: the GEMM and attention products on
// f32x4.relaxed_madd) is what it claims to be, so that the suites that run it beside the SIMD
// build (VARIANTS in helpers/paths.js) cannot pass on a build without it: the probe the page
// picks builds by says yes here (setup/relaxed-simd.js) and no without the flag; every relaxed
// module holds relaxed_madd in its GEMM and attention functions and no other relaxed
// instruction, the SIMD build none; the module the loader returns says it is the relaxed one;
// and the build's byte patch (cpp/wasm/relaxed_simd_patch.mjs) refuses a module whose bytes
// hold the old opcode inside an immediate.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { RELAXED_PROBE_BYTES, hasRelaxedSimd, simdBuild } from '../../web/src/core/simd-build.js';
import { loadLab } from './helpers/lab.js';
import { functionsOf } from './helpers/disassembly.js';
import { modulePath, repoRoot, scratchFiles } from './helpers/paths.js';

const MODULES = ['poslab', 'poslab-lm', 'poslab-train', 'poslab-bench'];
const MADD = 'f32x4.relaxed_madd';
const relaxedOps = (fns) => {
  const ops = new Map();
  for (const f of fns)
    for (const [op, n] of f.ops) if (/relaxed|laneselect/.test(op)) ops.set(op, (ops.get(op) ?? 0) + n);
  return ops;
};

describe('relaxed SIMD in this Node', () => {
  test('the probe passes with the flag set, so the loader picks the relaxed build', () => {
    expect(hasRelaxedSimd()).toBe(true);
    expect(simdBuild()).toBe('relaxed');
  });

  test('the probe fails in a Node without the flag (the SIMD build is then picked)', () => {
    const script = `import('${repoRoot}/web/src/core/simd-build.js').then((m) => console.log(m.simdBuild()))`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(out.trim()).toBe('simd');
    expect(RELAXED_PROBE_BYTES.length).toBeLessThan(64);
  });
});

describe.each(MODULES)('%s: the relaxed twin', (module) => {
  test('holds f32x4.relaxed_madd and no other relaxed instruction; the SIMD build none', () => {
    const relaxed = relaxedOps(functionsOf(modulePath('relaxed', module)));
    expect(relaxed.get(MADD) ?? 0, `no ${MADD} in ${modulePath('relaxed', module)}`).toBeGreaterThan(0);
    expect([...relaxed.keys()]).toEqual([MADD]);
    expect([...relaxedOps(functionsOf(modulePath('simd', module))).keys()]).toEqual([]);
  });
});

describe('where the relaxed instructions are', () => {
  // The GEMM's micro-kernels and the attention products (inlined into their callers: the
  // float attention into the models' causal_attention).
  const HOT = [
    { op: 'gemm', name: /fast.{0,40}gemm/ },
    { op: 'attention', name: /fast.{0,40}attention|model::causal_attention/ },
  ];
  test.each(HOT)('the $op functions of the language-model module use relaxed_madd', ({ op, name }) => {
    const hot = functionsOf(modulePath('relaxed', 'poslab-lm')).filter((f) => f.name && name.test(f.name));
    expect(
      hot.map((f) => f.name),
      `no ${op} function by name ${name}`,
    ).not.toEqual([]);
    expect(
      hot.reduce((n, f) => n + (f.ops.get(MADD) ?? 0), 0),
      `${op}: no ${MADD}`,
    ).toBeGreaterThan(0);
  });
});

describe('the module the loader returns', () => {
  test("reports the relaxed target: simdTarget() is 'WASM+RELAXED'", async () => {
    const lab = await loadLab('relaxed');
    expect(lab.simdTarget()).toBe('WASM+RELAXED');
    expect((await loadLab('simd')).simdTarget()).toBe('WASM');
  });

  test('fuses where the CPU has FMA: attention differs from the SIMD build in some bits, within the policy', async () => {
    // Not a tolerance test (the native suites are): on an x86 CPU with FMA, V8 lowers
    // relaxed_madd to vfmadd, so equal bits would mean the products never ran fused.
    const fma = /\bfma\b/.test(fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '');
    const [simd, relaxed] = await Promise.all([loadLab('simd'), loadLab('relaxed')]);
    const L = 64;
    const d = 64;
    const data = Float32Array.from({ length: L * d }, (_, i) => Math.sin(i * 0.37) * 0.9);
    const x = { data, shape: [L, d] };
    const a = simd.attention(x, x, x).output.data;
    const b = relaxed.attention(x, x, x).output.data;
    let differ = 0;
    let worst = 0;
    let scale = 0;
    for (let i = 0; i < a.length; i++) {
      if (a[i] !== b[i]) differ++;
      worst = Math.max(worst, Math.abs(a[i] - b[i]));
      scale = Math.max(scale, Math.abs(a[i]));
    }
    expect(worst).toBeLessThan(1e-5 * scale);
    if (fma) expect(differ, 'the relaxed build gave the SIMD build bits on an FMA CPU').toBeGreaterThan(0);
  });
});

describe('the build patch (cpp/wasm/relaxed_simd_patch.mjs)', () => {
  const file = scratchFiles('poslab-relaxed-patch-');
  const script = `${repoRoot}/cpp/wasm/relaxed_simd_patch.mjs`;
  // (func (param v128 v128 v128) (result v128) [i32.const 22525 drop] local.get 0 1 2
  // f32x4.relaxed_fma), in the pre-standard encoding clang 14 writes: 22525's LEB128 is fd af 01.
  const moduleBytes = (withImmediate) => {
    const body = [0x00, ...(withImmediate ? [0x41, 0xfd, 0xaf, 0x01, 0x1a] : [])];
    body.push(0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfd, 0xaf, 0x01, 0x0b);
    return Uint8Array.from([
      ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
      ...[0x01, 0x08, 0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b],
      ...[0x03, 0x02, 0x01, 0x00],
      ...[0x0a, body.length + 2, 0x01, body.length, ...body],
    ]);
  };
  const patch = (bytes, name) => {
    fs.writeFileSync(file(name), bytes);
    return spawnSync(process.execPath, [script, 'wasm-dis', file(name)], { encoding: 'utf8' });
  };

  test('rewrites a lone relaxed_fma to a relaxed_madd that validates', () => {
    const run = patch(moduleBytes(false), 'clean.wasm');
    expect(run.status, run.stderr).toBe(0);
    const out = fs.readFileSync(file('clean.wasm'));
    expect(WebAssembly.validate(out)).toBe(true);
    expect(Buffer.from(out).indexOf(Buffer.from([0xfd, 0x85, 0x02]))).toBeGreaterThan(0);
  });

  test('refuses a module whose immediates hold the same bytes', () => {
    const bytes = moduleBytes(true);
    const run = patch(bytes, 'immediate.wasm');
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/inside immediates/);
    expect(Buffer.compare(fs.readFileSync(file('immediate.wasm')), Buffer.from(bytes))).toBe(0);
  });

  test("keeps the bytes of a function without relaxed_fma and rewrites the other's", () => {
    // Function 0: () → () [i32.const 22525 drop]; function 1: the fma of moduleBytes(false).
    const immediate = [0x00, 0x41, 0xfd, 0xaf, 0x01, 0x1a, 0x0b];
    const fma = [0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfd, 0xaf, 0x01, 0x0b];
    const bytes = Uint8Array.from([
      ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
      ...[0x01, 0x0b, 0x02, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b, 0x60, 0x00, 0x00],
      ...[0x03, 0x03, 0x02, 0x01, 0x00],
      ...[0x0a, 21, 0x02, immediate.length, ...immediate, fma.length, ...fma],
    ]);
    const run = patch(bytes, 'two.wasm');
    expect(run.status, run.stderr).toBe(0);
    const out = Buffer.from(fs.readFileSync(file('two.wasm')));
    expect(WebAssembly.validate(out)).toBe(true);
    expect(out.indexOf(Buffer.from([0x41, 0xfd, 0xaf, 0x01]))).toBeGreaterThan(0); // 22525 kept
    expect(out.indexOf(Buffer.from([0x20, 0x02, 0xfd, 0x85, 0x02]))).toBeGreaterThan(0);
  });
});
