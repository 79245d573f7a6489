// View — Benchmarks: every results file of public/bench/ (listed by bench/index.json, which the
// build writes), per kernel time and % of the device's peak against size, PosLab's variants
// beside the PyTorch peer. Failed rows are left out; rows never checked are marked as such.
import { plainVariant } from '../bench/variant-names.js';
import { INDEX_FILE, STATUS, benchSeries, deviceLine, parseIndex, parseResults, shapeLabel } from '../bench/results.js';
import { createLinePlot } from '../plots/lineplot.js';
import { seriesColor } from '../plots/palette.js';
import { benchLegend } from './bench-legend.js';
import { createLocalRun } from './bench-local.js';
import { createViewSection, textIntro } from './kit.js';

const dashedIfPeer = (s) => s.peer || s.status === 'unchecked';
// The plain name (bench/variant-names.js), as the legend shows it: the id only in the legend's tooltip.
const seriesLabel = (s) => `${plainVariant(s)}${s.status === 'unchecked' ? ` (${STATUS.unchecked})` : ''}`;

async function loadFiles(base) {
  const res = await fetch(`${base}${INDEX_FILE}`);
  if (!res.ok) throw new Error(`bench/${INDEX_FILE}: HTTP ${res.status}`);
  const names = parseIndex(await res.text());
  return Promise.all(
    names.map(async (name) => {
      const r = await fetch(`${base}${name}`);
      if (!r.ok) throw new Error(`bench/${name}: HTTP ${r.status}`);
      return parseResults(await r.text(), name);
    }),
  );
}

export default function createBenchmarksView({ root }) {
  const { section, intro } = createViewSection('benchmarks');
  textIntro(
    intro,
    'Benchmarks',
    `Each chart plots the time per call (or the share of the GPU's peak speed: memory bandwidth, or tensor throughput for attention) against the amount of work. Solid lines: PosLab's kernels, each checked against the CPU core before it was timed; dashed: what a PyTorch user has (SDPA, FlexAttention, flash-attn), checked against the same core where their file says so and marked "${STATUS.unchecked}" where it predates those checks. Failed rows are not plotted. Hover a legend entry for its variant's id in the results files (public/bench/).`,
  );
  const devices = document.createElement('ul');
  devices.className = 'bench-devices';
  const status = document.createElement('p');
  status.className = 'note bench-status';
  status.textContent = 'Loading results…';
  const plots = document.createElement('div');
  plots.className = 'bench-plots';
  section.append(intro);
  createLocalRun(section); // builds its controls only: nothing runs until its button is pressed
  const committed = document.createElement('h3');
  committed.textContent = 'Committed GPU results';
  section.append(committed, devices, status, plots);
  root.append(section);

  let loaded = false;
  async function load() {
    loaded = true;
    try {
      const files = await loadFiles(new URL('bench/', document.baseURI).href);
      draw(files);
      status.textContent = `${files.length} results files.`;
    } catch (err) {
      status.textContent = `Could not load the results: ${err.message}`;
    }
  }

  function draw(files) {
    devices.replaceChildren(
      ...files.map((f) => {
        const li = document.createElement('li');
        li.className = 'bench-device';
        li.textContent = `${f.file}: ${deviceLine(f)}`;
        return li;
      }),
    );
    for (const k of benchSeries(files)) {
      const block = document.createElement('div');
      block.className = 'bench-kernel';
      block.dataset.kernel = k.kernel;
      block.dataset.params = k.params;
      const h3 = document.createElement('h3');
      h3.textContent = k.title;
      const look = (s, i) => ({ colour: seriesColor(i), dashed: dashedIfPeer(s), label: seriesLabel(s) });
      block.append(h3, benchLegend(k.series, look));
      plots.append(block);
      const time = createLinePlot(block, { title: `${k.title}: median time`, xTitle: 'elements', yTitle: 'ms' });
      const peak = createLinePlot(block, { title: `${k.title}: % of peak`, xTitle: 'elements', yTitle: '% of peak' });
      const name = ['benchmarks', k.kernel, k.params.replace(/[^\w]+/g, '-')].filter(Boolean).join('.');
      time.figure.el.dataset.figure = `${name}.time`;
      peak.figure.el.dataset.figure = `${name}.peak`;
      const lines = (y) =>
        k.series.map((s, i) => ({
          label: seriesLabel(s),
          color: look(s, i).colour,
          dashed: dashedIfPeer(s),
          x: s.points.map((q) => q.size),
          y: s.points.map(y),
        }));
      time.update(
        lines((q) => q.ms),
        { logX: true, logY: true, legend: false },
      );
      const of = [...new Set(k.series.flatMap((s) => s.points.map((q) => q.of)).filter(Boolean))].join(' / ');
      peak.update(
        lines((q) => q.pct ?? NaN),
        { logX: true, yTitle: `% of peak ${of}`, legend: false },
      );
      block.append(rowsTable(k));
    }
  }

  function rowsTable(k) {
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = `${k.title}: ${k.series.reduce((n, s) => n + s.points.length, 0)} rows${k.failed ? `, ${k.failed} failed (not plotted)` : ''}`;
    const table = document.createElement('table');
    table.className = 'bench-table';
    const head = table.createTHead().insertRow();
    for (const t of ['variant', 'dtype', 'shape', 'median ms', '% of peak', 'status']) {
      const th = document.createElement('th');
      th.textContent = t;
      head.append(th);
    }
    const body = table.createTBody();
    for (const s of k.series) {
      for (const q of s.points) {
        const tr = body.insertRow();
        tr.dataset.status = q.status;
        for (const v of [
          s.variant,
          s.dtype ?? '',
          shapeLabel(q.row),
          q.ms.toPrecision(4),
          q.pct == null ? '' : `${q.pct.toPrecision(3)} ${q.of}`,
          STATUS[q.status],
        ]) {
          tr.insertCell().textContent = v;
        }
      }
    }
    details.append(summary, table);
    return details;
  }

  return {
    section,
    update() {
      if (!loaded) load(); // nothing is fetched until the view is first shown
    },
  };
}
