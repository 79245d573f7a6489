// What every wasm benchmark prints first (issue 53 item 3): the CPU model and the SIMD peaks
// measured in the engine that runs it (peaks.js), so that each figure is read against the machine
// that made it (docs/benchmarks.md keeps a row per machine kind). Importing this module also
// switches on relaxed SIMD in Node 20, where it is behind a flag, so the relaxed build runs.
import os from 'node:os';
import v8 from 'node:v8';
import { hasRelaxedSimd } from '../../web/src/core/simd-build.js';
import { loadBenchModule } from './bench-module.js';
import { measurePeaks, peaksLine } from './peaks.js';

v8.setFlagsFromString('--experimental-wasm-relaxed-simd');

export const cpuModel = () => `${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores)`;

/** 'relaxed' where this Node runs relaxed SIMD, else 'simd'. */
export const bestSimdVariant = () => (hasRelaxedSimd() ? 'relaxed' : 'simd');

/** Prints the machine's lines for a Node benchmark; returns { cpu, peaks }. */
export async function printMachine() {
  const peaks = measurePeaks(await loadBenchModule(bestSimdVariant()));
  const cpu = cpuModel();
  console.log(`CPU: ${cpu}; node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`);
  console.log(peaksLine(peaks));
  return { cpu, peaks };
}

/** The same for a benchmark in a Chromium page (page: one of chromium-page.js's). */
export async function printChromiumMachine(browser, page) {
  const peaks = await page.evaluate(async () => {
    const { hasRelaxedSimd } = await import('/web/src/core/simd-build.js');
    const { measurePeaks } = await import('/bench/wasm/peaks.js');
    const dir = hasRelaxedSimd() ? '/build/wasm/simd/relaxed' : '/build/wasm/simd';
    return measurePeaks(await (await import(`${dir}/poslab-bench.mjs`)).default());
  });
  const cpu = cpuModel();
  console.log(`CPU: ${cpu}; Chromium ${browser.version()}, load ${os.loadavg()[0].toFixed(1)}`);
  console.log(peaksLine(peaks));
  return { cpu, peaks };
}
