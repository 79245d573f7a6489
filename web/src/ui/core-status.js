// The header's core status, which says only what is true: which view's code is loading, the
// WebAssembly core loading, ready (and with which instruction set), failed (and why), or not
// loaded because the view on screen has not needed it (Benchmarks reads files; the Models,
// Long context and training views run their own modules, each with its own progress line).

/** The instruction set a build reports, in plain words (its technical name goes in the tooltip). */
export const SIMD_WORDS = { WASM: 'SIMD', EMU128: 'no SIMD (scalar build)', SCALAR: 'no SIMD (scalar build)' };

/**
 * What the status line reads for a state.
 * @param {{ core: 'unused' | 'loading' | 'ready' | 'failed', simd?: string, why?: string, view?: string | null }} s
 *   view: the title of a view whose code is loading
 * @returns {{ text: string, title: string }}
 */
export function coreStatusText({ core, simd, why, view }) {
  if (core === 'failed') return { text: 'core: failed to load', title: why ?? '' };
  if (view) return { text: `loading the ${view} view…`, title: '' };
  if (core === 'loading') return { text: 'core: loading the WebAssembly core…', title: '' };
  if (core === 'ready') {
    return {
      text: `core: ready (WebAssembly, ${SIMD_WORDS[simd] ?? simd ?? 'SIMD unknown'})`,
      title: simd ? `Highway target: ${simd}` : '',
    };
  }
  return { text: 'core: not loaded (this view has not needed it)', title: '' };
}

/** Keeps `el` (a role=status element) in step with the page's events. */
export function createCoreStatus(el) {
  const s = { core: 'unused', simd: undefined, why: undefined, view: null };
  const show = () => {
    const { text, title } = coreStatusText(s);
    el.textContent = text;
    if (title) el.title = title;
    else el.removeAttribute('title');
    el.dataset.core = s.core;
  };
  show();
  return {
    /** A view's code started (title) or finished (null) loading. */
    viewLoading(title) {
      s.view = title;
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
