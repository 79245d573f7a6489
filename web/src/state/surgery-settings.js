// The Surgery view's settings as the JS API reads them (docs/surgery.md): the link's short
// texts ('0:2,4:6' for zeroed pairs, '0.1,1.2' for heads, '100,1e6' for bases; a space after a
// comma allowed) and an intervention's surgery.json params, both turned into the API's
// `surgery` option. Pure (no DOM, no wasm): the registry takes its patterns from here, the view
// and its job read the values through here.

/** Zeroed rotation pairs: 'a:b' ranges [a, b), comma-separated ('' none). */
export const PAIRS_RE = /^$|^\d{1,4}:\d{1,4}(, ?\d{1,4}:\d{1,4}){0,31}$/;
/** Heads: 'layer.head', comma-separated ('' none). */
export const HEADS_RE = /^$|^\d{1,3}\.\d{1,3}(, ?\d{1,3}\.\d{1,3}){0,63}$/;
/** Bases: plain or exponent numbers, comma-separated ('' the core's default list). */
export const BASES_RE = /^$|^\d{1,12}(\.\d{1,6})?(e\d{1,2})?(, ?\d{1,12}(\.\d{1,6})?(e\d{1,2})?){0,15}$/;

const list = (s) => (s ? s.split(',').map((x) => x.trim()) : []);

/** '0:2,4:6' → [[0, 2], [4, 6]]. */
export const parsePairs = (s) => list(s).map((r) => r.split(':').map(Number));

/** '0.1,1.2' → [[0, 1], [1, 2]]. */
export const parseHeads = (s) => list(s).map((h) => h.split('.').map(Number));

/** '100,1e6' → [100, 1000000]. */
export const parseBases = (s) => list(s).map(Number);

/**
 * The single intervention of the settings as the API's `surgery` option: only what is set
 * (a base of 0 is the model's own). p: the view's settings (zero, nopel, nopeh, ablate, rbase, lbase).
 */
export function singleSurgery(p) {
  const s = {};
  if (p.zero) s.ropeZeroPairs = parsePairs(p.zero);
  if (p.nopel?.length) s.nopeLayers = [...p.nopel];
  if (p.nopeh) s.nopeHeads = parseHeads(p.nopeh);
  if (p.ablate) s.ablateHeads = parseHeads(p.ablate);
  if (p.rbase > 0) s.ropeBase = p.rbase;
  if (p.lbase > 0) s.ropeLocalBase = p.lbase;
  return s;
}

// surgery.json's params keys → the API's surgery option's.
const PARAM_KEYS = {
  rope_zero_pairs: 'ropeZeroPairs',
  nope_layers: 'nopeLayers',
  nope_heads: 'nopeHeads',
  rope_base: 'ropeBase',
  rope_local_base: 'ropeLocalBase',
  ablate_heads: 'ablateHeads',
};

/** An intervention's params (surgery.json) as the API's `surgery` option: the same intervention again. */
export function surgeryOfParams(params = {}) {
  const s = {};
  for (const [key, name] of Object.entries(PARAM_KEYS)) {
    const v = params[key];
    if (v === undefined || v === null) continue;
    s[name] = Array.isArray(v) ? v.map((x) => (Array.isArray(x) ? [...x] : x)) : v;
  }
  return s;
}

/** The sweep's options for the API: { sweep, group?, bases?, window, seed, surgery? } (p: the view's settings). */
export function sweepOptions(p) {
  const o = { sweep: p.sweep, window: p.window, seed: p.seed };
  if (p.sweep === 'bands' && p.group > 0) o.group = p.group;
  if (p.sweep === 'base' && p.bases) o.bases = parseBases(p.bases);
  if (p.sweep === 'single') o.surgery = singleSurgery(p);
  return o;
}

/**
 * The index of the intervention the figures show: `show` counts the bars from 1; 0 (or a bar
 * the sweep does not have) picks the one whose mean change is largest. -1 when there is none.
 */
export function shownIntervention(interventions, show) {
  if (!interventions?.length) return -1;
  if (show >= 1 && show <= interventions.length) return show - 1;
  let best = 0;
  interventions.forEach((x, i) => {
    if (x.delta_mean > interventions[best].delta_mean) best = i;
  });
  return best;
}
