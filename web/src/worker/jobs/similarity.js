// The Similarity view's job: similarity of the encodings of every pair of positions, its mean by
// offset |i − j|, and for RoPE the RoFormer bound of |q·k| against distance.
import { fieldError } from '../../state/combinations.js';
import { encodingTable } from './tables.js';

export const MAX_SIM_LENGTH = 4096;

export function similarity(lab, p) {
  if (p.L > MAX_SIM_LENGTH) throw fieldError('L', `L is limited to ${MAX_SIM_LENGTH} for the L × L similarity matrix`);
  const table = encodingTable(lab, p);
  const s = lab.similarity(table, { metric: p.metric });
  const byOffset = lab.similarityByOffset(table, { metric: p.metric });
  const out = {
    heatmaps: { main: { data: s.data, rows: p.L, cols: p.L, cmap: p.cmap } },
    byOffset: byOffset.data,
  };
  if (p.method === 'rope') {
    out.decay = lab.ropeDecay({ headDim: p.D, maxDistance: p.L - 1, style: p.style, base: p.base }).data;
  }
  return out;
}
