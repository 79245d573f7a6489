// The Encodings view's job: the encoding of one method as a matrix. Vector methods give (L, D),
// position × dimension; bias methods (ALiBi, T5 buckets, Shaw indices) give (L, L), query × key.
import { assertAllowed, fieldError } from '../../state/combinations.js';
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

// Each pair method's (L, L) figure, by name. A pair method the core's table gains (PAIR_METHODS:
// kind 'relative table' or 'score bias', drawn by the core) needs its entry here; until it has
// one the job refuses it rather than draw another method's matrix.
export const PAIR_MATRICES = {
  shaw(lab, p) {
    const idx = lab.shawIndices({ queryLength: p.L, keyLength: p.L, maxDistance: p.clip });
    return { heatmaps: { main: { data: idx.data, rows: p.L, cols: p.L, cmap: p.cmap } } };
  },
  alibi(lab, p) {
    const { L } = p;
    const bias = lab.alibi({ heads: p.heads, queryLength: L, keyLength: L });
    const slopes = lab.alibiSlopes({ heads: p.heads });
    return {
      heatmaps: { main: { data: slice(bias, p.head, L), rows: L, cols: L, cmap: p.cmap } },
      bars: {
        labels: Array.from(slopes.data, (_, h) => `head ${h}`),
        values: slopes.data,
        title: 'ALiBi slope m_h per head',
        yTitle: 'slope',
      },
    };
  },
  kerple(lab, p) {
    const { L } = p;
    const bias = lab.kerple({ heads: p.heads, queryLength: L, keyLength: L, seed: p.seed });
    return { heatmaps: { main: { data: slice(bias, p.head, L), rows: L, cols: L, cmap: p.cmap } } };
  },
  t5(lab, p) {
    const { L } = p;
    const b = lab.t5Buckets({
      queryLength: L,
      keyLength: L,
      bidirectional: p.bidir,
      numBuckets: p.buckets,
      maxDistance: p.maxdist,
    });
    return { heatmaps: { main: { data: b.data, rows: L, cols: L, cmap: p.cmap } } };
  },
};

function pairMatrix(lab, p) {
  if (!Object.hasOwn(PAIR_MATRICES, p.method)) {
    throw fieldError('method', `the Encodings view has no (L, L) figure for ${p.method} yet`);
  }
  return { axes: { x: 'key position j', y: 'query position i' }, ...PAIR_MATRICES[p.method](lab, p) };
}
