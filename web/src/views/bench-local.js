// The Benchmarks view's "Run on this machine" section: on the user's click (never before), a
// worker times PosLab's SIMD and scalar wasm builds and plain JS on this browser, with a
// progress line and Cancel; then a table per case, a chart of each variant's time as a
// multiple of SIMD's, and "Download JSON" in the poslab-bench/1 schema the view plots.
import {
  RUN_COLUMNS,
  RUN_PRESETS,
  ratioCaveat,
  resultsFileName,
  resultsJson,
  runBars,
  runCells,
  runRows,
} from '../bench/local-run.js';
import { download } from '../export/download.js';
import { createBarPlot } from '../plots/barplot.js';
import { SIMD_WORDS, reportRun } from '../ui/core-status.js';
import { el } from '../ui/dom.js';

const makeBenchWorker = () => new Worker(new URL('../worker/bench.worker.js', import.meta.url), { type: 'module' });

/** Builds the section into `parent`; returns { section, cancel }. */
export function createLocalRun(parent, { makeWorker = makeBenchWorker } = {}) {
  const section = el('section', 'bench-local');
  section.setAttribute('aria-labelledby', 'bench-local-title');
  const title = el('h3', '', 'Run on this machine');
  title.id = 'bench-local-title';
  const about = el(
    'p',
    'note',
    'Times the sinusoidal table, RoPE and causal attention in this browser, in a worker on one thread: PosLab’s wasm SIMD build, its scalar build (same sources, no SIMD) and plain JavaScript, each checked against the SIMD result before it is timed. Nothing runs until you press Run.',
  );

  const controls = el('div', 'bench-local-controls');
  const sizeLabel = el('label', '', 'Sizes ');
  const size = el('select', 'bench-local-size');
  for (const p of RUN_PRESETS) {
    const o = el('option', '', p.label);
    o.value = p.size;
    size.append(o);
  }
  sizeLabel.append(size);
  const button = (text, className) => {
    const b = el('button', className, text);
    b.type = 'button';
    controls.append(b);
    return b;
  };
  controls.append(sizeLabel);
  const run = button('Run', 'bench-local-run button-primary');
  const cancel = button('Cancel', 'bench-local-cancel');
  const save = button('Download JSON', 'bench-local-download');
  cancel.hidden = true;
  save.disabled = true;

  const progress = el('p', 'note bench-local-progress');
  progress.setAttribute('role', 'status');
  const table = el('table', 'bench-table bench-local-table');
  const head = table.createTHead().insertRow();
  for (const c of RUN_COLUMNS) head.append(el('th', '', c));
  const body = table.createTBody();
  const results = el('div', 'bench-local-results');
  results.hidden = true;
  const device = el('p', 'note bench-local-device');
  const caveat = el('p', 'note bench-local-caveat');
  results.append(device, table, caveat);
  const chart = createBarPlot(results, {
    title: 'Time per call as a multiple of wasm SIMD’s (lower is faster)',
    yTitle: '× wasm SIMD time',
    height: 260,
  });
  chart.figure.el.dataset.figure = 'benchmarks.local.ratio';
  section.append(title, about, controls, progress, results);
  parent.append(section);

  let worker = null;
  let file = null;

  function stop() {
    worker?.terminate();
    worker = null;
    run.disabled = size.disabled = false;
    cancel.hidden = true;
  }

  function show(f) {
    file = f;
    const rows = runRows(f);
    body.replaceChildren();
    for (const r of rows) {
      const tr = body.insertRow();
      tr.dataset.kernel = r.kernel;
      for (const text of runCells(r)) tr.insertCell().textContent = text;
    }
    caveat.textContent = ratioCaveat(rows);
    // The builds' instruction sets in words; their Highway target names in the tooltip.
    const targets = Object.values(f.device.wasm_targets);
    device.textContent = `${f.device.name} · ${f.time_utc} · builds: ${targets.map((t) => SIMD_WORDS[t] ?? t).join(' / ')}`;
    device.title = `Highway targets: ${targets.join(' / ')}`;
    results.hidden = false;
    chart.update(runBars(rows));
    save.disabled = false;
    const failed = f.results.filter((r) => r.validated === false).length;
    progress.textContent = `Done: ${f.results.length} rows${failed ? `, ${failed} failed their check (not timed)` : ''}.`;
    section.dataset.state = 'done';
  }

  run.addEventListener('click', () => {
    stop();
    worker = makeWorker();
    run.disabled = size.disabled = true;
    cancel.hidden = false;
    section.dataset.state = 'running';
    reportRun('benchmarks', 'loading');
    progress.textContent = 'Starting…';
    worker.onmessage = ({ data }) => {
      if (data.type === 'progress') {
        // total is 0 while the builds load; done reaches total just before the results come
        const { done, total, label } = data;
        progress.textContent = !total
          ? `${label[0].toUpperCase()}${label.slice(1)}…`
          : done < total
            ? `Timing ${done + 1} of ${total}: ${label}…`
            : 'Finishing…';
      } else if (data.type === 'done') {
        stop();
        reportRun('benchmarks', 'ready');
        show(data.file);
      } else if (data.type === 'error') {
        stop();
        section.dataset.state = 'error';
        reportRun('benchmarks', 'failed', data.message);
        progress.textContent = `The run failed: ${data.message}`;
      }
    };
    worker.onerror = (e) => {
      e.preventDefault();
      stop();
      section.dataset.state = 'error';
      reportRun('benchmarks', 'failed', e.message);
      progress.textContent = `The benchmark worker failed: ${e.message || 'could not start'}`;
    };
    worker.postMessage({ size: size.value });
  });

  cancel.addEventListener('click', () => {
    stop();
    section.dataset.state = 'cancelled';
    reportRun('benchmarks', 'cancelled');
    progress.textContent = file ? 'Cancelled; the table shows the previous run.' : 'Cancelled.';
  });

  save.addEventListener('click', () => {
    if (file) download(resultsFileName(file), new Blob([resultsJson(file)], { type: 'application/json' }));
  });

  return { section, chart, cancel: stop };
}
