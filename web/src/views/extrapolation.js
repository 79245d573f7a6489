// The Out-of-scope lengths view (seed 000, done honestly): sinusoidal tables for the trained
// length N and a longer evaluation length L, how close unseen positions come to seen ones,
// and what each RoPE scaling does to frequencies, wavelengths and the attention factor.
import { formatExact } from '../plots/format.js';
import { range } from '../plots/lineplot.js';
import { CMAPS, SCALINGS } from '../state/registry.js';
import { createIntro, defineView } from './kit.js';

const scaling =
  (...names) =>
  (s) =>
    names.includes(s['ext.scaling']);

const SPECS = [
  { key: 'ext.N', label: 'training length N', kind: 'slider' },
  { key: 'ext.L', label: 'evaluation length L (extrapolate)', kind: 'slider' },
  { key: 'ext.D', label: 'width D (= RoPE head width)', kind: 'slider', step: 2 },
  { key: 'ext.base', label: 'base b', kind: 'number' },
  { key: 'ext.scaling', label: 'RoPE scaling', kind: 'select', options: SCALINGS.map((s) => [s, s]) },
  { key: 'ext.factor', label: 'factor f', kind: 'number', step: 0.5, show: (s) => s['ext.scaling'] !== 'none' },
  { key: 'ext.bfast', label: 'YaRN beta_fast', kind: 'number', show: scaling('yarn') },
  { key: 'ext.bslow', label: 'YaRN beta_slow', kind: 'number', show: scaling('yarn') },
  { key: 'ext.lowff', label: 'llama3 low_freq_factor', kind: 'number', show: scaling('llama3') },
  { key: 'ext.highff', label: 'llama3 high_freq_factor', kind: 'number', show: scaling('llama3') },
  { key: 'ext.cmap', label: 'colour map', kind: 'select', options: CMAPS.map((c) => [c, c]) },
];

const SOURCE =
  'seed 000 claims periodicity lets a model handle lengths it never saw. Its code is also off: it applies sin to the even and cos to the odd columns of the (L, D/2) angle matrix, so its “64-dim” table has 32 columns and no sin/cos pairs.';
const NOTE =
  'The Trained positions and Evaluation positions tables are the correct ones. The wavelengths run from 2π to 2π·b, so for any practical L no position repeats an earlier one: unseen positions are new vectors, close to their neighbours but not to any trained position far back. ' +
  'Models trained with sinusoidal encodings do not extrapolate well in practice (Press et al. 2022); long-context models instead rescale RoPE, below.';

// Reference wavelengths that define each scaling's bands (from its parameters, for labels).
function wavelengthMarks(p) {
  if (p.scaling === 'yarn') {
    return [
      { axis: 'y', value: p.N / p.bfast, label: `N/β_fast = ${formatExact(p.N / p.bfast)}` },
      { axis: 'y', value: p.N / p.bslow, label: `N/β_slow = ${formatExact(p.N / p.bslow)}` },
    ];
  }
  if (p.scaling === 'llama3') {
    return [
      { axis: 'y', value: p.N / p.highff, label: `N/high_freq_factor = ${formatExact(p.N / p.highff)}` },
      { axis: 'y', value: p.N / p.lowff, label: `N/low_freq_factor = ${formatExact(p.N / p.lowff)}` },
    ];
  }
  return [{ axis: 'y', value: p.N, label: `N = ${p.N}` }];
}

export default defineView('extrapolation', {
  controls: SPECS,
  build(shell) {
    createIntro(shell, { title: 'Out-of-scope lengths', note: NOTE, source: SOURCE });

    const pair = document.createElement('div');
    pair.className = 'grid-2';
    shell.plots.append(pair);
    const table = (name, title) =>
      shell.heatmap(name, { title, xTitle: 'dimension', yTitle: 'position', height: 300 }, pair);
    const curve = (name, title, xTitle, yTitle) => shell.lines(name, { title, xTitle, yTitle });
    const train = table('train', 'Trained positions');
    const evalMap = table('eval', 'Evaluation positions');
    const nearest = curve('nearest', 'How close is each position to a trained one?', 'position p', 'cosine similarity');
    const ropeHead = document.createElement('h3');
    const factor = document.createElement('p');
    factor.className = 'readout-big';
    factor.setAttribute('role', 'status');
    shell.plots.append(ropeHead, factor);
    const freq = curve('freq', 'RoPE inv_freq θᵢ per pair', 'pair i', 'θᵢ (rad / position)');
    const ratio = curve('ratio', 'Scaled θᵢ / original θᵢ (YaRN’s ramp, llama3’s bands)', 'pair i', 'ratio');
    const waves = curve('wavelengths', 'Wavelength 2π/θᵢ per pair', 'pair i', 'wavelength (positions)');
    const byOffset = curve(
      'offset',
      'RoPE: cosine between positions i and i + k (unit vector)',
      'offset k',
      'mean cosine',
    );

    return {
      draw(r, p) {
        train.update(r.heatmaps.train);
        train.figure.setTitle(`Trained: positions 0…${p.N - 1} (N = ${p.N}, D = ${p.D})`);
        evalMap.update({
          ...r.heatmaps.eval,
          rowMarks: p.L > p.N ? [{ row: p.N - 0.5, label: `unseen from ${p.N}` }] : [],
        });
        evalMap.figure.setTitle(`Evaluated: positions 0…${p.L - 1} (L = ${p.L})`);
        nearest.update(
          [
            { label: 'max cosine to any trained position j < N, j ≠ p', x: range(p.L), y: r.nearest },
            { label: 'cosine to the previous position p − 1', x: range(p.L), y: r.neighbour, dashed: true },
          ],
          { refLines: [{ axis: 'x', value: p.N - 0.5, label: 'N' }] },
        );
        nearest.figure.setNote(unseenSummary(r, p));
        ropeHead.textContent = `RoPE scaling: ${p.scaling}${p.scaling === 'none' ? '' : ` × ${p.factor}`} (head width ${p.D}, trained on N = ${p.N}, run at L = ${p.L})`;
        factor.textContent = `attention factor (multiplies cos and sin): ${formatExact(r.attentionFactor)}`;
        const { plain, scaled } = r.invFreq;
        const pairs = range(plain.length);
        freq.update(
          [
            { label: 'original', x: pairs, y: plain },
            { label: p.scaling, x: pairs, y: scaled, dashed: true },
          ],
          { logY: true },
        );
        // In double: the core's θᵢ are doubles and the ratio is exactly 1 or 1/f outside the ramp.
        ratio.update(
          [{ label: `${p.scaling} / original`, x: pairs, y: Float64Array.from(scaled, (v, i) => v / plain[i]) }],
          {
            logY: false,
          },
        );
        waves.update(
          [
            { label: 'original', x: pairs, y: r.wavelengths.plain },
            { label: p.scaling, x: pairs, y: r.wavelengths.scaled, dashed: true },
          ],
          { logY: true, refLines: wavelengthMarks(p) },
        );
        byOffset.update(
          [
            { label: 'original', x: range(p.L), y: r.ropeByOffset.plain },
            { label: p.scaling, x: range(p.L), y: r.ropeByOffset.scaled, dashed: true },
          ],
          { refLines: [{ axis: 'x', value: p.N, label: 'N' }] },
        );
      },
    };
  },
});

function unseenSummary(r, p) {
  if (p.L <= p.N) return 'No unseen positions: L ≤ N.';
  let lo = Infinity;
  let at = -1;
  for (let q = p.N; q < p.L; q++) {
    if (r.nearest[q] < lo) {
      lo = r.nearest[q];
      at = q;
    }
  }
  return `Least familiar unseen position: ${at}, whose closest trained position (${r.nearestIndex[at]}) has cosine ${formatExact(lo)}.`;
}
