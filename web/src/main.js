// The playground's entry: builds the shell (tabs, theme toggle, message bar), starts the
// compute scheduler, and ties the store (= the URL hash) to the view on screen. Views are
// built the first time they are shown and only the visible one recomputes.
import './styles/main.css';
import { createComputeClient } from './worker/client.js';
import { syncHash } from './state/hash-sync.js';
import { VIEWS, defaults } from './state/schema.js';
import { createStore } from './state/store.js';
import { addEmbedButtons } from './ui/embed-code.js';
import { createMessages } from './ui/messages.js';
import { renderTabs } from './ui/tabs.js';
import { applyTheme, nextTheme } from './ui/theme.js';
import { createAttentionView } from './views/attention.js';
import { createEncodingsView } from './views/encodings.js';
import { createExtrapolationView } from './views/extrapolation.js';
import { createGalleryView } from './views/gallery.js';
import { createOffsetView } from './views/offset.js';
import { createSimilarityView } from './views/similarity.js';

const FACTORIES = {
  encodings: createEncodingsView,
  similarity: createSimilarityView,
  extrapolation: createExtrapolationView,
  offset: createOffsetView,
  attention: createAttentionView,
  gallery: createGalleryView,
};
// Views loaded on first use (their code, and what they load, weighs nothing until then).
const LAZY = { gpt2: () => import('./views/gpt2.js').then((m) => m.createGpt2View) };
const loading = new Map();

const store = createStore(defaults());
const messages = createMessages(document.getElementById('messages'));
const coreStatus = document.getElementById('core-status');
// One scheduler, one worker per view (started with the view): a slow figure holds no other.
// The GPT-2 view's channels share one worker, where its model stays loaded between jobs; its
// name tells the worker not to load the core module, which GPT-2 jobs do not use.
const compute = createComputeClient(
  (name) => new Worker(new URL('./worker/compute.worker.js', import.meta.url), { type: 'module', name }),
  {
    onReady: ({ simd }) => {
      if (simd) coreStatus.textContent = `core: WebAssembly (${simd === 'WASM' ? 'SIMD128' : simd})`;
      document.documentElement.dataset.ready = 'true';
    },
    onFatal: (message) => {
      coreStatus.textContent = 'core: failed to load';
      messages.fatal(message);
    },
    sharedWorker: (channel) => (channel === 'gpt' || channel.startsWith('gpt-') ? 'gpt2' : null),
  },
);

const main = document.getElementById('views');
const tabs = renderTabs(document.getElementById('tabs'), VIEWS, store);
const built = new Map();
let shown = null;

function show(state) {
  const name = state.view;
  if (!built.has(name) && !FACTORIES[name]) {
    if (!loading.has(name)) {
      const done = LAZY[name]().then((factory) => {
        FACTORIES[name] = factory;
        if (store.get().view === name) show(store.get());
      });
      done.catch((e) => {
        loading.delete(name); // choosing the tab again tries again
        messages.fatal(`the ${name} view could not load: ${e.message}`);
      });
      loading.set(name, done);
    }
    for (const v of built.values()) v.section.hidden = true;
    tabs.select(name);
    shown = name;
    return;
  }
  if (!built.has(name)) {
    const view = FACTORIES[name]({ root: main, store, compute });
    if (name !== 'gallery' && name !== 'gpt2') addEmbedButtons(view.section, name, store); // a local file has no embed
    built.set(name, view);
  }
  for (const [n, v] of built) v.section.hidden = n !== name;
  tabs.select(name);
  shown = name;
  built.get(name).update(state);
}

const themeButton = document.getElementById('theme');
themeButton.addEventListener('click', () => store.set({ theme: nextTheme(store.get().theme) }, { source: 'control' }));
const showTheme = (theme) => {
  applyTheme(theme);
  themeButton.textContent = `theme: ${theme}`;
};

store.subscribe((state, changed) => {
  if (changed.includes('theme')) showTheme(state.theme);
  if (changed.includes('view') || shown !== state.view) show(state);
  else built.get(state.view)?.update(state); // absent while a lazy view loads
});
showTheme(store.get().theme);
syncHash(store, messages.linkProblems);
if (shown === null) show(store.get());
