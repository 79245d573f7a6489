// What a seed-gallery card's thumbnail shows, decided from the card's first preset alone: a
// view with a worker job runs that job on the preset's settings (read as its link would be)
// and shows one named figure of it; the Length generalisation view, whose figures cost a
// training run, gets a related formula figure computed instead and says so; a view that needs
// a language model gets a label. Pure: the unit tests check it without a browser.
import { sequenceLength, SIZES } from '../lab/presets.js';
import { SCHEMA, pick, viewNamed } from '../state/registry.js';
import { presetHash, readLink } from '../state/url.js';

/**
 * Per view with a job: the figure a thumbnail shows (its registry name, for the caption) and
 * where that figure is in the job's result (a heatmap by key, or a series by key).
 * @type {Record<string, { figure: string, heatmap?: string, line?: string }>}
 */
export const THUMBNAIL_FIGURES = {
  encodings: { figure: 'table', heatmap: 'main' },
  similarity: { figure: 'matrix', heatmap: 'main' },
  extrapolation: { figure: 'eval', heatmap: 'eval' },
  offset: { figure: 'matrix', heatmap: 'main' },
  attention: { figure: 'weights', heatmap: 'weights' }, // the softmax weights: the mask shows
};

/**
 * Views whose own figures are never computed for a thumbnail: a cheap figure of another view
 * computed in their place (a preset of that view and the series of its result to draw).
 * @type {Record<string, (s: Record<string, any>) => { preset: Record<string, any>, line: string, shade: number, caption: string }>}
 */
const STAND_INS = {
  // Seed 000's claim, trained on lengths ≤ N and tested to 4N. Shown instead: how close each
  // token position of a test sequence comes, in the sinusoidal table at the model's width, to
  // a position training saw (Out-of-scope lengths' "closeness" figure, trained range shaded).
  'length-generalisation': (s) => {
    const trained = sequenceLength(s['lg.task'], s['lg.N']);
    const tested = sequenceLength(s['lg.task'], 4 * s['lg.N']);
    return {
      preset: {
        view: 'extrapolation',
        'ext.N': trained,
        'ext.L': tested,
        'ext.D': SIZES[s['lg.size']].width,
        'ext.scaling': 'none',
      },
      line: 'nearest',
      shade: trained,
      caption: `Not trained for a preview: how close sinusoidal positions come to a trained one (${trained} token positions trained, ${tested} tested)`,
    };
  },
};

const NEEDS_A_MODEL = new Set(['lm', 'long-context']);

/**
 * The state a preset's link opens with (defaults filled in, combinations fitted). A value its
 * setting refuses, or settings refused together, are an error here, not a quiet default: the
 * thumbnail would show another figure than the card's link.
 */
function presetState(preset) {
  const refused = (field, why) => Object.assign(new Error(`gallery preset for ${preset.view}: ${why}`), { field });
  for (const [key, value] of Object.entries(preset)) {
    if (key === 'view') continue;
    if (!Object.hasOwn(SCHEMA, key)) throw refused(key, `unknown setting ${key}`);
    const checked = SCHEMA[key].check(value);
    if (!checked.ok) throw refused(key, `${key} = ${JSON.stringify(value)} ${checked.reason}`);
  }
  const { state, problems } = readLink(presetHash(preset));
  if (problems.length) throw refused(undefined, problems.join('; '));
  return state;
}

/**
 * @typedef {{ kind: 'live', job: string, params: Record<string, any>, heatmap?: string,
 *   line?: string, shade?: number, caption: string } | { kind: 'label', caption: string }} ThumbnailPlan
 *   live: run `job` on `params` (the worker's job and the view's own settings), then draw the
 *   result's heatmap or series of that key (positions below `shade` shaded); label: text only.
 */

/**
 * @param {Record<string, any>} preset a partial state with `view` (a card's first preset)
 * @returns {ThumbnailPlan}
 */
export function thumbnailPlan(preset) {
  const view = viewNamed(preset?.view);
  if (!view) throw new Error(`gallery preset names no view: ${JSON.stringify(preset?.view)}`);
  const state = presetState(preset);
  if (view.job) {
    const shows = THUMBNAIL_FIGURES[view.name];
    if (!shows) throw new Error(`no thumbnail figure chosen for the ${view.name} view (THUMBNAIL_FIGURES)`);
    const { figure, ...where } = shows;
    return {
      kind: 'live',
      job: view.job,
      params: pick(state, view.prefix),
      ...where,
      caption: `${view.title}: ${view.figures[figure].title}`,
    };
  }
  const standIn = STAND_INS[view.name]?.(state);
  if (standIn) {
    const other = viewNamed(standIn.preset.view);
    return {
      kind: 'live',
      job: other.job,
      params: pick(presetState(standIn.preset), other.prefix),
      line: standIn.line,
      shade: standIn.shade,
      caption: standIn.caption,
    };
  }
  const caption = NEEDS_A_MODEL.has(view.name)
    ? `${view.title}: needs a language model, loaded on the view (no preview)`
    : `${view.title}: no figure to preview`;
  return { kind: 'label', caption };
}
