// The Offset matrix view's job: seed 002's claim made checkable. M_k from the core, PE(p) and
// PE(p+k) from the core's sinusoidal table (interleaved layout, the one M_k is block diagonal for),
// and the residual PE(p+k) − M_k·PE(p), which should sit at float32 rounding level.
import { assertAllowed } from '../../state/combinations.js';
import { matVec } from './linalg.js';

export function offset(lab, { D, k, p, base }) {
  assertAllowed('off', { D, k, p }); // even D, p + k ≥ 0
  const M = lab.offsetMatrix({ dim: D, k, base });
  const pe = lab.sinusoidal({ length: 1, dim: D, base, offset: p }).data;
  const target = lab.sinusoidal({ length: 1, dim: D, base, offset: p + k }).data;
  const moved = matVec(M.data, pe, D);
  const residual = new Float32Array(D);
  let maxAbs = 0;
  for (let i = 0; i < D; i++) {
    residual[i] = target[i] - moved[i];
    maxAbs = Math.max(maxAbs, Math.abs(residual[i]));
  }
  return {
    heatmaps: { main: { data: M.data, rows: D, cols: D, cmap: 'RdBu' } },
    pe,
    target,
    moved,
    residual,
    maxAbs,
  };
}
