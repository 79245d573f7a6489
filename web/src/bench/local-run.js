// The Benchmarks view's "Run on this machine", its plain part: the size presets a run offers,
// the device a run records (the browser and its logical cores), one table row per case (the
// three variants side by side, SIMD's speed-up over the other two), the bars of the chart, and
// the file to download (the poslab-bench/1 schema that results.js reads).
import { paramsLabel, rowSize, shapeLabel, validationStatus } from './results.js';
import { kernelName } from './variant-names.js';
import { VARIANTS } from './wasm-bench.js';

/** What the page offers: the full sizes by default, tiny ones for a quick check (and the e2e). */
export const RUN_PRESETS = [
  { size: 'default', label: 'full sizes (npm run bench:wasm’s; a minute or two)' },
  { size: 'tiny', label: 'quick check (tiny sizes; a second, times mostly call overhead)' },
];

/** Short names of the variants, for headers and legends. */
export const VARIANT_LABELS = { 'wasm-simd': 'wasm SIMD', 'wasm-scalar': 'wasm scalar', 'plain-js': 'plain JS' };

/** The other variants, each against wasm SIMD: "SIMD vs scalar" = scalar's time / SIMD's. */
export const BASELINES = VARIANTS.filter((v) => v !== 'wasm-simd');

/** "Chrome 131", "Firefox 133", … from a user-agent string; "browser" when none matches. */
export function browserName(ua) {
  const known = [
    [/Edg\/(\d+)/, 'Edge'],
    [/OPR\/(\d+)/, 'Opera'],
    [/Firefox\/(\d+)/, 'Firefox'],
    [/HeadlessChrome\/(\d+)/, 'Headless Chrome'],
    [/Chrome\/(\d+)/, 'Chrome'],
    [/Version\/(\d+)[\d.]* .*Safari\//, 'Safari'],
  ];
  for (const [re, name] of known) {
    const m = re.exec(ua);
    if (m) return `${name} ${m[1]}`;
  }
  return 'browser';
}

/**
 * The `device` of a run in this browser: the user agent, the logical cores it reports (the
 * benchmark uses one) and each wasm build's Highway target.
 * @param {{ userAgent?: string, hardwareConcurrency?: number }} nav  navigator (a worker's will do)
 * @param {{ simd?: string, scalar?: string }} targets  simdTarget() of each build
 */
export function browserDevice(nav, targets = {}) {
  const ua = String(nav?.userAgent ?? '');
  const cores = Number.isInteger(nav?.hardwareConcurrency) ? nav.hardwareConcurrency : null;
  const system = /\(([^)]+)\)/.exec(ua)?.[1];
  const name = [browserName(ua), system && `(${system})`].filter(Boolean).join(' ');
  return {
    name: cores ? `${name}, ${cores} logical cores` : name,
    user_agent: ua,
    hardware_concurrency: cores,
    threads_used: 1,
    wasm_targets: { 'wasm-simd': targets.simd ?? null, 'wasm-scalar': targets.scalar ?? null },
  };
}

const ratio = (slow, fast) => (slow > 0 && fast > 0 ? slow / fast : null);

/**
 * One row per case (kernel, shape and params) of a results file: each variant's median time
 * (null where the variant failed its check or is absent) and SIMD's speed-up over the others.
 * @returns {{ kernel: string, params: string, shape: string, size: number,
 *   ms: Record<string, number|null>, status: Record<string, string>, speedup: Record<string, number|null> }[]}
 */
export function runRows(file) {
  const cases = new Map();
  for (const r of file.results) {
    const params = paramsLabel(r);
    const shape = shapeLabel(r);
    const key = `${r.kernel}|${shape}|${params}`;
    if (!cases.has(key)) cases.set(key, { kernel: r.kernel, params, shape, size: rowSize(r), ms: {}, status: {} });
    const c = cases.get(key);
    const status = validationStatus(r);
    c.status[r.variant] = status;
    c.ms[r.variant] = status === 'failed' ? null : r.median_ms;
  }
  return [...cases.values()].map((c) => ({
    ...c,
    speedup: Object.fromEntries(BASELINES.map((v) => [v, ratio(c.ms[v], c.ms['wasm-simd'])])),
  }));
}

/** Headers of the results table, in the order of runCells. */
export const RUN_COLUMNS = [
  'case',
  'size',
  ...VARIANTS.map((v) => `${VARIANT_LABELS[v]} ms`),
  ...BASELINES.map((v) => `SIMD vs ${VARIANT_LABELS[v]}`),
];

// Three significant digits, without exponents: 0.0512, 22.5, 1030.
const sig3 = (x) => (Math.abs(x) >= 1000 ? x.toFixed(0) : x.toPrecision(3));
const formatMs = (ms, status) => (status === 'failed' ? 'failed' : Number.isFinite(ms) ? sig3(ms) : '—');
const formatRatio = (x) => (x == null ? '—' : `${sig3(x)}×`);

/** The text of each cell of a row, in the order of RUN_COLUMNS. */
export function runCells(row) {
  return [
    row.params ? `${kernelName(row.kernel)} (${row.params})` : kernelName(row.kernel),
    row.shape,
    ...VARIANTS.map((v) => formatMs(row.ms[v], row.status[v])),
    ...BASELINES.map((v) => formatRatio(row.speedup[v])),
  ];
}

/**
 * The note under the table: what a ratio is and what a wasm time holds, and the cases where
 * a variant beat SIMD (a ratio under 1×: "SIMD vs plain JS 0.0873×" reads as a bug without it).
 */
export function ratioCaveat(rows) {
  const base =
    'A ratio is the other variant’s time over wasm SIMD’s: above 1× SIMD was faster. ' +
    'A wasm time is the whole call through PosLab’s JavaScript API (checking the inputs, copying them into the module’s memory and the result back out), ' +
    'so on small inputs it measures that copying more than the arithmetic, which plain JS does in place.';
  const slower = rows.filter((r) => BASELINES.some((v) => r.speedup[v] != null && r.speedup[v] < 1));
  if (!slower.length) return base;
  return `${base} Under 1× here, SIMD was the slower: ${slower.map((r) => `${kernelName(r.kernel)} ${r.shape}`).join(', ')}.`;
}

/** The chart: per case, each variant's time as a multiple of wasm SIMD's (SIMD = 1). */
export function runBars(rows) {
  return {
    labels: rows.map((r) => `${kernelName(r.kernel)} ${r.shape}`),
    series: VARIANTS.map((v) => ({
      label: VARIANT_LABELS[v],
      values: rows.map((r) => ratio(r.ms[v], r.ms['wasm-simd']) ?? NaN),
    })),
  };
}

/** The file to download: the results file as the view reads it (NaN never appears: untimed is null). */
export function resultsJson(file) {
  return `${JSON.stringify(file, null, 1)}\n`;
}

/** A name results.js's index would accept (letters, digits, '.', '-', '_'), unique per run. */
export function resultsFileName(file) {
  const stamp = String(file.time_utc || file.date || 'run').replace(/[^\w.-]/g, '');
  return `poslab-wasm-browser-${stamp}.json`;
}
