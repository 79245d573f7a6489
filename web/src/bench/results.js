// Reading the benchmark results files of public/bench/ (schema poslab-bench/1): the index the
// build writes, each row's validation status, its % of the device's peak, and the series the
// Benchmarks view plots (one per kernel × dtype × variant, time and % of peak against size).
import { kernelName } from './variant-names.js';

/** The index file the build writes next to the results (vite.config.js, benchIndex). */
export const INDEX_FILE = 'index.json';

/** Validation status of a row: the one rule the view, the legend and the tests share. */
export const STATUS = {
  passed: 'validated',
  failed: 'failed',
  unchecked: 'peer, not checked',
};

/** @param {{ validated?: boolean | null }} row */
export function validationStatus(row) {
  if (row.validated === true) return 'passed';
  if (row.validated === false) return 'failed';
  return 'unchecked'; // null or missing: never compared with the reference (e.g. torch rows)
}

/** Reads the index: `{ files: string[] }`, names only (no paths), .json, not the index itself. */
export function parseIndex(text) {
  const data = typeof text === 'string' ? JSON.parse(text) : text;
  if (!data || !Array.isArray(data.files)) throw new Error('bench index: "files" must be an array');
  for (const f of data.files) {
    if (typeof f !== 'string' || !/^[\w.-]+\.json$/.test(f) || f === INDEX_FILE) {
      throw new Error(`bench index: bad file name ${JSON.stringify(f)}`);
    }
  }
  return data.files;
}

/** Checks a results file's shape; returns it with `file` attached. Throws naming the field. */
export function parseResults(text, file = '') {
  const data = typeof text === 'string' ? JSON.parse(text) : text;
  const where = file ? `${file}: ` : '';
  if (!data || typeof data !== 'object') throw new Error(`${where}not a JSON object`);
  if (!data.device || typeof data.device !== 'object') throw new Error(`${where}"device" missing`);
  if (!Array.isArray(data.results)) throw new Error(`${where}"results" must be an array`);
  data.results.forEach((r, i) => {
    if (typeof r.kernel !== 'string' || typeof r.variant !== 'string') {
      throw new Error(`${where}results[${i}]: "kernel" and "variant" are required`);
    }
    // A row that failed its check was never timed (a wrong answer has no speed): null is its time.
    const untimed = r.validated === false && r.median_ms == null;
    if (!untimed && !Number.isFinite(r.median_ms)) {
      throw new Error(`${where}results[${i}].median_ms must be a number`);
    }
  });
  return { ...data, file };
}

/**
 * % of the device's peak for a row: tensor throughput where the row counts flops (attention),
 * memory bandwidth where it counts bytes. Recomputed from the row's own time and the
 * device's peak_* fields, so a file without pct_* fields (the page's own runs) still plots.
 * @returns {{ pct: number, of: 'tensor' | 'bandwidth' } | null}
 */
export function percentOfPeak(row, device) {
  const s = row.median_ms / 1000;
  if (!(s > 0)) return null;
  if (Number.isFinite(row.flops) && device?.peak_tensor_tflops > 0) {
    return { pct: (100 * row.flops) / s / (device.peak_tensor_tflops * 1e12), of: 'tensor' };
  }
  if (Number.isFinite(row.bytes) && device?.peak_bandwidth_gbs > 0) {
    return { pct: (100 * row.bytes) / s / (device.peak_bandwidth_gbs * 1e9), of: 'bandwidth' };
  }
  return null;
}

/** The size a row is plotted against: the product of its shape's axes (elements of work). */
export function rowSize(row) {
  const shape = row.shape || {};
  const axes = Object.values(shape).filter((v) => Number.isFinite(v));
  return axes.length ? axes.reduce((a, b) => a * b, 1) : 0;
}

/** "B1 H32 L1024 D128" */
export function shapeLabel(row) {
  return Object.entries(row.shape || {})
    .map(([k, v]) => `${k}${v}`)
    .join(' ');
}

/**
 * Params that say how a variant works, not what work it does: rows that differ only in these
 * are plotted together (ALiBi in the kernel, or as a bias tensor whichever backend SDPA picked).
 */
const HOW_PARAMS = new Set(['causal', 'in_kernel', 'backend']); // causal: implied by the mask

/** "mask none", "style neox": the row's params, which decide what a time is comparable with. */
export function paramsLabel(row) {
  return Object.entries(row.params || {})
    .filter(([k]) => !HOW_PARAMS.has(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) // files list params in different orders
    .map(([k, v]) => `${k} ${paramValue(v)}`)
    .join(', ');
}

// A param's value in the table's labels: 'causal+alibi' → 'causal+ALiBi'. 'none' stays a word
// here (scaling none, mask none), never NoPE.
const paramValue = (v) =>
  String(v)
    .split('+')
    .map((t) => (t === 'none' ? t : kernelName(t)))
    .join('+');

/**
 * Series for plotting: per kernel and params (a causal mask and no mask are different work), one series per (source, variant, dtype), points sorted by
 * size; failed rows are left out (counted in `failed`), unchecked rows kept and marked.
 * @param {Array<ReturnType<typeof parseResults>>} files
 */
export function benchSeries(files) {
  /** @type {Map<string, { kernel: string, series: Map<string, any>, failed: number }>} */
  const kernels = new Map();
  for (const f of files) {
    const peer = f.source === 'pytorch' || /^torch/.test(f.file || '');
    for (const row of f.results) {
      const params = paramsLabel(row);
      const group = `${row.kernel}|${params}`;
      if (!kernels.has(group)) kernels.set(group, { kernel: row.kernel, params, series: new Map(), failed: 0 });
      const k = kernels.get(group);
      const status = validationStatus(row);
      if (status === 'failed') {
        k.failed += 1;
        continue;
      }
      // The backend SDPA picked for a bias is part of the peer's name: "torch-sdpa+bias [efficient]".
      const backend = row.params?.backend ? `[${row.params.backend}]` : '';
      const key = [row.variant, backend, row.dtype].filter(Boolean).join(' ');
      if (!k.series.has(key)) {
        k.series.set(key, {
          label: key,
          variant: row.variant,
          dtype: row.dtype,
          peer,
          status,
          file: f.file,
          points: [],
        });
      }
      const s = k.series.get(key);
      if (status === 'unchecked') s.status = 'unchecked';
      const peak = percentOfPeak(row, f.device);
      s.points.push({
        size: rowSize(row),
        ms: row.median_ms,
        pct: peak?.pct ?? null,
        of: peak?.of ?? null,
        row,
        status,
      });
    }
  }
  return [...kernels.values()].map((k) => ({
    kernel: k.kernel,
    params: k.params,
    title: k.params ? `${kernelName(k.kernel)} (${k.params})` : kernelName(k.kernel),
    failed: k.failed,
    series: [...k.series.values()].map((s) => ({ ...s, points: s.points.sort((a, b) => a.size - b.size) })),
  }));
}

/** One line about where a file was measured: device, driver, date. */
export function deviceLine(f) {
  const d = f.device || {};
  const parts = [d.name || 'unknown device'];
  if (d.driver) parts.push(`driver ${d.driver}`);
  if (f.date || f.time_utc) parts.push(f.time_utc || f.date);
  return parts.join(' · ');
}
