// The plots an embed may show, by name: a whole view, or one figure of it (its position
// among the view's figures, in page order). Names outside this list are refused, so the
// `plot` parameter can never select anything else.

/** @type {Record<string, { view: string, prefix: string, figure: number | null, height: number, title: string }>} */
export const PLOTS = {
  'encodings.table': { view: 'encodings', prefix: 'enc', figure: 0, height: 470, title: 'Encoding table' },
  'encodings.vectors': {
    view: 'encodings',
    prefix: 'enc',
    figure: 1,
    height: 350,
    title: 'Vectors of chosen positions',
  },
  'encodings.waves': { view: 'encodings', prefix: 'enc', figure: 2, height: 350, title: 'Waves of chosen dimensions' },
  encodings: { view: 'encodings', prefix: 'enc', figure: null, height: 1400, title: 'Encodings' },
  'similarity.matrix': { view: 'similarity', prefix: 'sim', figure: 0, height: 510, title: 'Similarity matrix' },
  'similarity.offset': {
    view: 'similarity',
    prefix: 'sim',
    figure: 1,
    height: 350,
    title: 'Mean similarity by offset',
  },
  similarity: { view: 'similarity', prefix: 'sim', figure: null, height: 1200, title: 'Similarity' },
  extrapolation: { view: 'extrapolation', prefix: 'ext', figure: null, height: 2200, title: 'Out-of-scope lengths' },
  'offset.matrix': { view: 'offset', prefix: 'off', figure: 0, height: 470, title: 'Offset matrix M_k' },
  'offset.residual': { view: 'offset', prefix: 'off', figure: 2, height: 350, title: 'Offset residual' },
  offset: { view: 'offset', prefix: 'off', figure: null, height: 1200, title: 'Offset matrix' },
  attention: { view: 'attention', prefix: 'att', figure: null, height: 1600, title: 'Attention and masks' },
};

// Friendly short names (the issue's `plot="heatmap"`).
export const PLOT_ALIASES = { heatmap: 'encodings.table', table: 'encodings.table', similarity: 'similarity' };

export const DEFAULT_PLOT = 'encodings.table';

/** A plot name (or alias) → its canonical name, or null when it is not on the list. */
export function resolvePlot(name) {
  if (typeof name !== 'string') return null;
  if (Object.hasOwn(PLOTS, name)) return name;
  return Object.hasOwn(PLOT_ALIASES, name) ? PLOT_ALIASES[name] : null;
}

/** The embed plot name for figure `index` of `view` (whole view when it has no own name). */
export function plotFor(view, index) {
  for (const [name, p] of Object.entries(PLOTS)) if (p.view === view && p.figure === index) return name;
  return Object.hasOwn(PLOTS, view) ? view : null;
}
