// The code of each view in the registry (state/registry.js), loaded the first time the view is
// shown: the playground's tabs and the embeds build views through here. The registry never
// imports this file, so state/ imports no view and the views may import state/ freely.

/** @type {Record<string, () => Promise<{ default: Function }>>} a view's name → its module */
export const VIEW_LOADERS = {
  start: () => import('./start.js'),
  encodings: () => import('./encodings.js'),
  similarity: () => import('./similarity.js'),
  extrapolation: () => import('./extrapolation.js'),
  offset: () => import('./offset.js'),
  attention: () => import('./attention.js'),
  'long-context': () => import('./long-context.js'),
  'length-generalisation': () => import('./length-generalisation.js'),
  'text-lab': () => import('./text-lab.js'),
  gallery: () => import('./gallery.js'),
  benchmarks: () => import('./benchmarks.js'),
  lm: () => import('./lm.js'),
  lens: () => import('./lens.js'),
  surgery: () => import('./surgery.js'),
  'rope-inspector': () => import('./rope-inspector.js'),
};

/** The factory ({ root, store, compute }) → { section, update }) of the view named `name`. */
export async function loadView(name) {
  if (!Object.hasOwn(VIEW_LOADERS, name)) throw new Error(`no view named ${name}`);
  return (await VIEW_LOADERS[name]()).default;
}
