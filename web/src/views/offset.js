// The Offset matrix view (seed 002's claim made checkable): for a fixed offset k there is one
// matrix M_k, block diagonal with a 2×2 rotation per frequency, with PE(p+k) = M_k·PE(p) for
// every p. Shows M_k, both sides of the equation, and their residual.
import { formatExact } from '../plots/format.js';
import { range } from '../plots/lineplot.js';
import { createIntro, defineView } from './kit.js';

const SPECS = [
  { key: 'off.D', label: 'width D', kind: 'slider', step: 2, max: 256 },
  { key: 'off.k', label: 'offset k', kind: 'slider', min: -100, max: 100 },
  { key: 'off.p', label: 'position p', kind: 'slider', max: 1000 },
  { key: 'off.base', label: 'base b', kind: 'number' },
];

const TEX = String.raw`PE(p+k) = M_k\,PE(p),\qquad M_k = \operatorname{diag}_i\!\begin{pmatrix} \cos k\omega_i & \sin k\omega_i \\ -\sin k\omega_i & \cos k\omega_i \end{pmatrix},\quad \omega_i = b^{-2i/D}`;

const SOURCE = 'seed 002 states that PE(pos+k) is a linear function of PE(pos) for any fixed k, without showing it.';
const NOTE =
  'PE(p + k) = M_k · PE(p) holds because sin and cos of a pair share one frequency: the angle-addition formulas make each pair rotate by kωᵢ, whatever p is. ' +
  'M_k depends on k only, not on p (move p: the matrix stays). The residual is float32 rounding. The sliders cover D ≤ 256 and |k| ≤ 100; type larger values in the number boxes.';

export default defineView('offset', {
  controls: SPECS,
  build(shell) {
    createIntro(shell, { title: 'Offset matrix', tex: TEX, note: NOTE, source: SOURCE });
    const matrix = shell.heatmap('matrix', { title: 'M_k', xTitle: 'column', yTitle: 'row', height: 380 });
    const sides = shell.lines('sides', { title: 'PE(p + k) and M_k · PE(p)', xTitle: 'dimension', yTitle: 'value' });
    const residual = shell.lines('residual', {
      title: 'Residual PE(p + k) − M_k · PE(p)',
      xTitle: 'dimension',
      yTitle: 'residual',
    });
    return {
      draw(r, p) {
        matrix.update(r.heatmaps.main);
        matrix.figure.setTitle(`M_k for k = ${p.k} (${p.D} × ${p.D}, block diagonal)`);
        const x = range(p.D);
        sides.update([
          { label: `PE(${p.p + p.k})`, x, y: r.target },
          { label: `M_${p.k} · PE(${p.p})`, x, y: r.moved, dashed: true },
          { label: `PE(${p.p})`, x, y: r.pe, color: '#999999' },
        ]);
        residual.update([{ label: 'residual', x, y: r.residual }]);
        residual.figure.setNote(
          `max |residual| = ${formatExact(r.maxAbs)} (float32 rounding is about 6e-8 per operation)`,
        );
      },
    };
  },
});
