// The header's status line: the engine that computes the view on screen and its state, which
// says only what is true — which view's code is loading; the WebAssembly core loading, ready
// (and with which instruction set) or failed (and why); or, for a view that computes with a
// module of its own (the language-model module, the trainer, the benchmark module), whether
// that module has run yet in this view. Views report their runs through reportRun.

/** The instruction set a build reports, in plain words (its technical name goes in the tooltip). */
export const SIMD_WORDS = {
  WASM: 'SIMD',
  'WASM+RELAXED': 'relaxed SIMD', // the SIMD build's twin with f32x4.relaxed_madd (core/simd-build.js)
  EMU128: 'no SIMD (scalar build)',
  SCALAR: 'no SIMD (scalar build)',
};

/** Each engine's name on the status line. */
export const ENGINE_WORDS = {
  core: 'core',
  lm: 'language-model module',
  trainer: 'trainer',
  bench: 'benchmark module',
};

/**
 * The engine each view computes with (the core unless named here; null: none, the view shows
 * committed files or text). The one place the header learns it from.
 * @type {Record<string, keyof typeof ENGINE_WORDS | null>}
 */
export const VIEW_ENGINES = {
  'long-context': 'lm',
  lm: 'lm',
  lens: 'lm',
  surgery: 'lm',
  'rope-inspector': 'lm',
  'length-generalisation': 'trainer',
  'text-lab': 'trainer',
  benchmarks: 'bench',
  gallery: null,
  start: null,
};

/** The engine of the view `name`. */
export const engineOf = (name) => (Object.hasOwn(VIEW_ENGINES, name) ? VIEW_ENGINES[name] : 'core');

// A module's state in the view that runs it, worded for each engine.
function moduleText(engine, run, why) {
  const name = ENGINE_WORDS[engine];
  if (run === 'loading') return { text: `${name}: working (loaded with this view's first run)…`, title: '' };
  if (run === 'ready') return { text: `${name}: ready (WebAssembly)`, title: '' };
  if (run === 'failed') return { text: `${name}: the last run failed (the view says why)`, title: why ?? '' };
  const when = engine === 'bench' ? 'Run on this machine loads it' : "it loads with this view's first run";
  return { text: `${name}: not loaded yet (${when})`, title: '' };
}

/**
 * What the status line reads for a state.
 * @param {{ core: 'unused' | 'loading' | 'ready' | 'failed', simd?: string, why?: string, view?: string | null,
 *   engine?: keyof typeof ENGINE_WORDS | null, run?: 'unused' | 'loading' | 'ready' | 'failed', runWhy?: string }} s
 *   view: the title of a view whose code is loading; engine: the shown view's (default the core);
 *   run: how far that engine has got in the shown view, when it is not the core
 * @returns {{ text: string, title: string }}
 */
export function coreStatusText({ core, simd, why, view, engine = 'core', run = 'unused', runWhy }) {
  if (engine === 'core' && core === 'failed') return { text: 'core: failed to load', title: why ?? '' };
  if (view) return { text: `loading the ${view} view…`, title: '' };
  if (engine === null) return { text: 'no engine: nothing on this view is computed', title: '' };
  if (engine !== 'core') return moduleText(engine, run, runWhy);
  if (core === 'loading') return { text: 'core: loading the WebAssembly core…', title: '' };
  if (core === 'ready') {
    return {
      text: `core: ready (WebAssembly, ${SIMD_WORDS[simd] ?? simd ?? 'SIMD unknown'})`,
      title: simd ? `Highway target: ${simd}` : '',
    };
  }
  return { text: 'core: not loaded (this view has not needed it)', title: '' };
}

// Views report their runs here (kit.js's update cycle, the benchmark run); the header listens.
const listeners = new Set();

/** The view `name`'s engine started a run ('loading'), finished one ('ready'), failed ('failed') or was stopped ('cancelled'). */
export function reportRun(name, run, why) {
  for (const fn of listeners) fn(name, run, why);
}

/** Keeps `el` (a role=status element) in step with the page's events. */
export function createCoreStatus(el) {
  const s = { core: 'unused', simd: undefined, why: undefined, view: null, shown: null };
  const runs = new Map(); // view name → { run, why }: how far its own module has got
  const show = () => {
    const engine = s.shown === null ? 'core' : engineOf(s.shown);
    const { run, why: runWhy } = runs.get(s.shown) ?? {};
    const { text, title } = coreStatusText({ ...s, engine, run, runWhy });
    el.textContent = text;
    if (title) el.title = title;
    else el.removeAttribute('title');
    el.dataset.core = s.core;
    el.dataset.engine = engine ?? 'none';
  };
  listeners.add((name, run, why) => {
    // A run of a module already loaded in this view shows it ready, not loading again.
    // A cancelled run leaves the module as it was, or not loaded when it was only loading.
    const was = runs.get(name)?.run;
    if ((run === 'loading' || run === 'cancelled') && was === 'ready') return;
    runs.set(name, run === 'cancelled' ? { run: 'unused' } : { run, why });
    if (name === s.shown) show();
  });
  show();
  return {
    /** A view's code started (title) or finished (null) loading. */
    viewLoading(title) {
      s.view = title;
      show();
    },
    /** The view on screen (its registry name). */
    viewShown(name) {
      s.shown = name;
      show();
    },
    /** A worker that loads the core started. */
    coreLoading() {
      if (s.core === 'unused') s.core = 'loading';
      show();
    },
    coreReady(simd) {
      if (s.core === 'failed') return;
      Object.assign(s, { core: 'ready', simd });
      show();
    },
    failed(why) {
      Object.assign(s, { core: 'failed', why });
      show();
    },
  };
}
