// Switches on WebAssembly relaxed SIMD in each test process before any module compiles, so the
// relaxed variant (build/wasm/simd/relaxed) runs in Node 20, where it is behind a flag (Chromium
// has it on). A V8 flag set at run time, not a Node option: a Node that ships the feature and
// no longer knows the flag ignores it. relaxed_simd.test.js checks that it took.
import v8 from 'node:v8';

v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
