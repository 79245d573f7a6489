// The plots an embed may show, by name, read off the view registry: a whole view (`attention`),
// or one figure of it by its stable name (`encodings.table`), for the figures the registry
// gives an embed height. Names outside this list are refused, so the `plot` parameter can
// never select anything else.
import { VIEWS } from '../state/registry.js';

/** @type {Record<string, { view: string, prefix: string, figure: string | null, height: number, title: string }>} */
export const PLOTS = {};
/** Older or friendlier names (the issue's `plot="heatmap"`, positions) → a name in PLOTS. */
export const PLOT_ALIASES = {};

for (const v of VIEWS) {
  if (!v.embed) continue;
  Object.entries(v.figures).forEach(([figure, f], position) => {
    if (f.height === undefined) return;
    const name = `${v.name}.${figure}`;
    PLOTS[name] = { view: v.name, prefix: v.prefix, figure, height: f.height, title: f.title };
    // Figures were once told apart by their position in the view (`offset.2`).
    for (const alias of [...(f.aliases ?? []), `${v.name}.${position}`]) PLOT_ALIASES[alias] = name;
  });
  PLOTS[v.name] = { view: v.name, prefix: v.prefix, figure: null, height: v.embed.height, title: v.title };
}

export const DEFAULT_PLOT = 'encodings.table';

/** A plot name (or alias) → its canonical name, or null when it is not on the list. */
export function resolvePlot(name) {
  if (typeof name !== 'string') return null;
  if (Object.hasOwn(PLOTS, name)) return name;
  return Object.hasOwn(PLOT_ALIASES, name) ? PLOT_ALIASES[name] : null;
}

/** The embed plot for figure `figure` of `view` (the whole view when it has no own name); null: none. */
export function plotFor(view, figure) {
  const own = `${view}.${figure}`;
  if (figure && Object.hasOwn(PLOTS, own)) return own;
  return Object.hasOwn(PLOTS, view) ? view : null;
}
