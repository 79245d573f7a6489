// The Similarity view: cos (or dot) similarity of the encodings of every pair of positions
// (seed 001's matshow), its mean by offset |i − j|, and for RoPE the q·k decay bound.
import { METHOD_INFO } from '../content/methods.js';
import { range } from '../plots/lineplot.js';
import { hasOption } from '../state/methods.js';
import { CMAPS, VECTOR_METHODS } from '../state/registry.js';
import { defineView, whenSettingIn } from './kit.js';

const is = whenSettingIn('sim.method');

const SPECS = [
  { key: 'sim.method', label: 'method', kind: 'select', options: VECTOR_METHODS.map((m) => [m, METHOD_INFO[m].name]) },
  { key: 'sim.L', label: 'positions L', kind: 'slider' },
  { key: 'sim.D', label: 'width D', kind: 'slider', step: 2 },
  { key: 'sim.base', label: 'base b', kind: 'number', show: (s) => hasOption(s['sim.method'], 'base') },
  { key: 'sim.layout', label: 'layout', kind: 'select', show: is('sinusoidal') },
  { key: 'sim.style', label: 'pairing', kind: 'select', show: is('rope') },
  { key: 'sim.seed', label: 'seed', kind: 'number', show: is('learned') },
  {
    key: 'sim.metric',
    label: 'metric',
    kind: 'select',
    options: [
      ['cosine', 'cosine'],
      ['dot', 'dot product'],
    ],
  },
  { key: 'sim.cmap', label: 'colour map', kind: 'select', options: CMAPS.map((c) => [c, c]) },
];

const NOTES = {
  sinusoidal:
    'Similarity depends only on the offset i − j (each pair of dimensions contributes cos((i − j)ωᵢ)), so the matrix is Toeplitz: constant along diagonals. It falls off with distance but not monotonically, and never to zero.',
  learned:
    'An untrained (seeded random) table: positions are nearly orthogonal to each other. Training is what would give it structure.',
  rope: 'For RoPE the rows are rotations of one unit vector, so cos(q_i, q_j) depends only on i − j. The second curve is RoFormer’s upper bound on |q·k| against distance (§3.4.3): the long-term decay.',
  none: 'NoPE adds nothing: every position’s vector is zero. The core defines the cosine of a zero vector as 0 (not NaN), so the matrix is all zeros: positions are indistinguishable.',
};

export default defineView('similarity', {
  controls: SPECS,
  build(shell) {
    const note = document.createElement('p');
    note.className = 'note';
    shell.intro.append(note);
    const heat = shell.heatmap('matrix', {
      title: 'Similarity matrix',
      xTitle: 'position j',
      yTitle: 'position i',
      height: 420,
    });
    const byOffset = shell.lines('offset', {
      title: 'Mean similarity by offset |i − j|',
      xTitle: 'offset |i − j|',
      yTitle: 'similarity',
    });
    const decay = shell.lines('decay', {
      title: 'RoPE: bound on |q·k| vs distance (RoFormer §3.4.3)',
      xTitle: 'distance m',
      yTitle: 'bound',
    });
    return {
      show(p) {
        note.textContent = NOTES[p.method];
      },
      draw(r, p) {
        heat.update(r.heatmaps.main);
        heat.figure.setTitle(
          `${p.metric === 'cosine' ? 'Cosine similarity' : 'Dot product'} of ${p.method === 'none' ? 'NoPE' : p.method} encodings, ${p.L} × ${p.L} (D = ${p.D})`,
        );
        byOffset.update([{ label: `mean ${p.metric}`, x: range(r.byOffset.length), y: r.byOffset }], {
          yTitle: p.metric,
        });
        decay.figure.el.hidden = !r.decay;
        if (r.decay) decay.update([{ label: 'RoFormer bound', x: range(r.decay.length), y: r.decay }]);
      },
    };
  },
});
