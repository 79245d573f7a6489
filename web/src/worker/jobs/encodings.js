// View 1: the encoding of one method as a matrix. Vector methods give (L, D), position ×
// dimension; bias methods (ALiBi, T5 buckets, Shaw indices) give (L, L), query × key.
import { assertAllowed } from '../../state/combinations.js';
import { isPairMethod } from '../../state/methods.js';
import { encodingTable } from './tables.js';

const slice = (t, h, L) => t.data.slice(h * L * L, (h + 1) * L * L);

/**
 * @param {any} lab
 * @param {Record<string, any>} p the view's controls (enc.* without the prefix)
 */
export function encodings(lab, p) {
  const { method, L, D } = p;
  assertAllowed('enc', p); // the cell caps, even widths, existing heads
  if (isPairMethod(method)) return pairMatrix(lab, p);
  const t = encodingTable(lab, p);
  return {
    heatmaps: { main: { data: t.data, rows: L, cols: D, cmap: p.cmap } },
    axes: { x: 'dimension', y: 'position' },
  };
}

function pairMatrix(lab, p) {
  const { method, L } = p;
  const axes = { x: 'key position j', y: 'query position i' };
  if (method === 'alibi') {
    const bias = lab.alibi({ heads: p.heads, queryLength: L, keyLength: L });
    const slopes = lab.alibiSlopes({ heads: p.heads });
    return {
      heatmaps: { main: { data: slice(bias, p.head, L), rows: L, cols: L, cmap: p.cmap } },
      axes,
      bars: {
        labels: Array.from(slopes.data, (_, h) => `head ${h}`),
        values: slopes.data,
        title: 'ALiBi slope m_h per head',
        yTitle: 'slope',
      },
    };
  }
  if (method === 't5') {
    const b = lab.t5Buckets({
      queryLength: L,
      keyLength: L,
      bidirectional: p.bidir,
      numBuckets: p.buckets,
      maxDistance: p.maxdist,
    });
    return { heatmaps: { main: { data: b.data, rows: L, cols: L, cmap: p.cmap } }, axes };
  }
  const idx = lab.shawIndices({ queryLength: L, keyLength: L, maxDistance: p.clip });
  return { heatmaps: { main: { data: idx.data, rows: L, cols: L, cmap: p.cmap } }, axes };
}
