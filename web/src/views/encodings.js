// The Encodings view: the table (or bias matrix) of one method as a heatmap, the vectors of
// chosen positions, the waves of chosen dimensions, the formula and a note on when to use it.
import { METHOD_INFO } from '../content/methods.js';
import { range } from '../plots/lineplot.js';
import { hasOption, isHeadBias, isPairMethod, isRotation, isSeeded, rotationPairs } from '../state/methods.js';
import { CMAPS, METHODS } from '../state/registry.js';
import { renderMath } from '../ui/math.js';
import { createIntro, defineView, sourceNote, whenSettingIn } from './kit.js';

const is = whenSettingIn('enc.method');

const SPECS = [
  { key: 'enc.method', label: 'method', kind: 'select', options: METHODS.map((m) => [m, METHOD_INFO[m].name]) },
  { key: 'enc.L', label: 'positions L', kind: 'slider' },
  { key: 'enc.D', label: 'width D', kind: 'slider', step: 2, show: (s) => !isPairMethod(s['enc.method']) },
  { key: 'enc.base', label: 'base b', kind: 'number', show: (s) => hasOption(s['enc.method'], 'base') },
  {
    key: 'enc.layout',
    label: 'layout',
    kind: 'select',
    show: is('sinusoidal'),
    options: [
      ['interleaved', 'interleaved (sin, cos, sin, …)'],
      ['concat', 'concat (sines | cosines)'],
    ],
  },
  {
    key: 'enc.style',
    label: 'pairing',
    kind: 'select',
    show: is('rope'),
    options: [
      ['neox', 'neox (i, i + D/2)'],
      ['gptj', 'gptj (2i, 2i + 1)'],
    ],
  },
  {
    key: 'enc.scalebase',
    label: 'scale base s',
    kind: 'number',
    show: (s) => hasOption(s['enc.method'], 'scaleBase'),
  },
  {
    key: 'enc.keep',
    label: 'kept fraction p',
    kind: 'number',
    show: (s) => hasOption(s['enc.method'], 'keepFraction'),
  },
  { key: 'enc.heads', label: 'heads H', kind: 'number', show: (s) => isHeadBias(s['enc.method']) },
  { key: 'enc.head', label: 'head shown', kind: 'number', show: (s) => isHeadBias(s['enc.method']) },
  { key: 'enc.buckets', label: 'buckets', kind: 'number', show: is('t5') },
  { key: 'enc.maxdist', label: 'max distance', kind: 'number', show: is('t5') },
  { key: 'enc.bidir', label: 'bidirectional', kind: 'checkbox', show: is('t5') },
  { key: 'enc.clip', label: 'clip K', kind: 'number', show: is('shaw') },
  { key: 'enc.seed', label: 'seed', kind: 'number', show: (s) => isSeeded(s['enc.method']) },
  {
    key: 'enc.pos',
    label: 'rows to plot (positions; queries for L × L)',
    kind: 'list',
    help: 'comma-separated, e.g. 0, 1, 2, 10',
  },
  {
    key: 'enc.dims',
    label: 'columns to plot (dimensions; keys for L × L)',
    kind: 'list',
    help: 'comma-separated column indices',
  },
  { key: 'enc.cmap', label: 'colour map', kind: 'select', options: CMAPS.map((c) => [c, c]) },
];

export default defineView('encodings', {
  controls: SPECS,
  build(shell) {
    const { title, formula, note } = createIntro(shell);
    const heat = shell.heatmap('table', {
      title: 'Encoding table',
      xTitle: 'dimension',
      yTitle: 'position',
      height: 380,
    });
    const rows = shell.lines('vectors', { title: 'Vectors of chosen positions', xTitle: 'dimension', yTitle: 'value' });
    const cols = shell.lines('waves', { title: 'Waves of chosen dimensions', xTitle: 'position', yTitle: 'value' });
    const bars = shell.bars('slopes', { title: 'ALiBi slopes', yTitle: 'slope m_h' });
    let shownTex = null;
    let source = null; // the method's "Source" note, where a seed gets it wrong

    function drawLines(p, m, axes) {
      const pair = isPairMethod(p.method);
      const keep = (list, n) => list.filter((i) => i < n);
      const pos = keep(p.pos, m.rows);
      const dims = keep(p.dims, m.cols);
      rows.update(
        pos.map((r) => ({
          label: `${axes.y} ${r}`,
          x: range(m.cols),
          y: m.data.subarray(r * m.cols, (r + 1) * m.cols),
        })),
        { xTitle: axes.x, yTitle: 'value' },
      );
      cols.update(
        dims.map((c) => ({
          label: `${axes.x} ${c}`,
          x: range(m.rows),
          y: Float32Array.from({ length: m.rows }, (_, r) => m.data[r * m.cols + c]),
        })),
        { xTitle: axes.y, yTitle: 'value' },
      );
      rows.figure.setTitle(pair ? 'Rows of chosen query positions' : 'Vectors of chosen positions');
      cols.figure.setTitle(pair ? 'Columns of chosen key positions' : 'Waves of chosen dimensions');
      const dropped = p.pos.length - pos.length + p.dims.length - dims.length;
      rows.figure.setNote(
        dropped ? `${dropped} chosen index(es) beyond the matrix (${m.rows} × ${m.cols}) are left out.` : '',
      );
    }

    return {
      show(p) {
        // The heading is known before the compute: set now, a longer one wrapping later would
        // push the plot down after it has drawn.
        heat.figure.setTitle(headingFor(p));
        const info = METHOD_INFO[p.method];
        const tex = p.method === 'sinusoidal' && p.layout === 'concat' ? info.texConcat : info.tex;
        if (tex === shownTex) return; // KaTeX layout costs milliseconds: only when the formula changes
        title.textContent = info.name;
        renderMath(formula, tex);
        note.textContent = info.use;
        source?.remove();
        source = info.source ? sourceNote(info.source) : null;
        if (source) note.after(source);
        shownTex = tex;
      },
      draw(r, p) {
        const axes = { x: r.axes.x, y: r.axes.y };
        heat.update(r.heatmaps.main, { xTitle: axes.x, yTitle: axes.y });
        drawLines(p, heat.matrix, axes);
        bars.figure.el.hidden = !r.bars;
        if (r.bars) bars.update({ labels: r.bars.labels, values: r.bars.values });
      },
    };
  },
});

function headingFor(p) {
  if (isRotation(p.method)) {
    // A decaying rotation's table is its queries' side (ζ^e), at the scale base shown.
    const decay = hasOption(p.method, 'scaleBase') ? `; queries, scale base ${p.scalebase}` : '';
    const kept = hasOption(p.method, 'keepFraction') ? `; p = ${p.keep}, the rest not rotated` : '';
    const pairs = rotationPairs(p.method, p.style);
    return `${METHOD_INFO[p.method].label} (${pairs}${decay}${kept}) of the unit vector, ${p.L} × ${p.D}`;
  }
  if (isHeadBias(p.method)) {
    const seeded = isSeeded(p.method) ? `, seed ${p.seed}` : '';
    return `${METHOD_INFO[p.method].label} bias of head ${p.head} (of ${p.heads}${seeded}), ${p.L} × ${p.L}`;
  }
  switch (p.method) {
    case 't5':
      return `T5 bucket of j − i, ${p.L} × ${p.L} (${p.buckets} buckets, max distance ${p.maxdist})`;
    case 'shaw':
      return `Shaw index clip(j − i, −${p.clip}, ${p.clip}) + ${p.clip}, ${p.L} × ${p.L}`;
    case 'none':
      return `NoPE: zeros, ${p.L} × ${p.D}`;
    case 'learned':
      return `Learned (seeded) table, ${p.L} × ${p.D}`;
    case 'sinusoidal':
      return `Sinusoidal table, ${p.L} × ${p.D}`;
    default:
      // A method of the table without a heading of its own: its label, never another's.
      return `${METHOD_INFO[p.method]?.label ?? p.method}, ${p.L} × ${isPairMethod(p.method) ? p.L : p.D}`;
  }
}
