// The playground's entry: builds the shell (tabs, theme toggle, message bar), starts the
// compute scheduler, and ties the store (= the URL hash) to the view on screen. Views come
// from the registry (state/registry.js): each one's code is loaded (views/loaders.js) and
// built the first time it is shown, and only the visible one recomputes.
import './styles/main.css';
import './styles/page.css';
import { VIEW_LEADS } from './content/leads.js';
import { createComputeClient } from './worker/client.js';
import { createInlineRunner } from './worker/inline.js';
import { VIEWS, defaults, viewNamed } from './state/registry.js';
import { createStore } from './state/store.js';
import { loadView } from './views/loaders.js';
import { syncHash } from './state/url.js';
import { addEmbedButtons } from './ui/embed-code.js';
import { createCoreStatus } from './ui/core-status.js';
import { createMessages } from './ui/messages.js';
import { placePrimary } from './ui/primary.js';
import { renderTabs } from './ui/tabs.js';
import { applyTheme, nextTheme } from './ui/theme.js';
import { addLead, pendingHead } from './ui/view-lead.js';
import { renderViewMenu } from './ui/view-menu.js';

const store = createStore(defaults());
const messages = createMessages(document.getElementById('messages'));
const coreStatus = createCoreStatus(document.getElementById('core-status'));
// One scheduler, one worker per view (started with the view): a slow figure holds no other.
// The Models view's channels (its prefix, prefix-load, …) share one worker, where its model
// stays loaded between jobs; its name tells the worker not to load the core module, which the
// language-model jobs do not use.
const lm = viewNamed('lm').prefix;
const compute = createComputeClient(
  (name) => {
    if (name !== 'lm') coreStatus.coreLoading(); // every other worker loads the core at start
    return new Worker(new URL('./worker/compute.worker.js', import.meta.url), { type: 'module', name });
  },
  {
    onReady: ({ simd }) => {
      if (simd) coreStatus.coreReady(simd); // the language-model worker says ready without a core
      document.documentElement.dataset.ready = 'true';
    },
    onFatal: (message) => {
      coreStatus.failed(message);
      messages.fatal(message);
    },
    sharedWorker: (channel) => (channel === lm || channel.startsWith(`${lm}-`) ? 'lm' : null),
    // Jobs that fit in a few milliseconds run on this thread, drawn in the frame after the input.
    inline: createInlineRunner(),
  },
);

const main = document.getElementById('views');
const tabs = renderTabs(document.getElementById('tabs'), VIEWS, store);
const menu = renderViewMenu(document.getElementById('view-menu-slot'), VIEWS, store);
const built = new Map();
let shown = null;

const factories = new Map(); // name → the view's factory, loading or loaded

// A view's code starts loading once the page has painted its title and lead: loaded at once,
// its chunk and KaTeX's stylesheet would hold the first paint back (the first screen's largest
// paint, LCP, would wait for them). A hidden tab gets no frames: 100 ms at most.
const afterNextPaint = () =>
  new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100);
  });

// The title and lead shown while a view's code loads (ui/view-lead.js): { name, el } or null.
let pending = null;
const dropPending = (name) => {
  if (pending && pending.name !== name) return;
  pending?.el.remove();
  pending = null;
};

function show(state) {
  const name = state.view;
  if (pending && pending.name !== name) dropPending(pending.name);
  tabs.select(name);
  menu.select(name);
  shown = name;
  coreStatus.viewShown(name);
  if (built.has(name)) {
    for (const [n, v] of built) v.section.hidden = n !== name;
    built.get(name).update(state);
    return;
  }
  for (const v of built.values()) v.section.hidden = true;
  if (factories.has(name)) return; // loading: shown when it arrives
  const decl = viewNamed(name);
  const loading = afterNextPaint().then(() => loadView(name));
  factories.set(name, loading);
  coreStatus.viewLoading(decl.title);
  pending = { name, el: pendingHead(main, decl, VIEW_LEADS[name]) };
  loading.then(
    (factory) => {
      coreStatus.viewLoading(null);
      const shownLead = pending?.name === name ? pending.el.querySelector('.lead') : null;
      dropPending(name);
      const view = factory({ root: main, store, compute });
      addLead(view.section, decl, VIEW_LEADS[name], shownLead);
      placePrimary(view.section, decl.primary);
      if (decl.embed) addEmbedButtons(view.section, name, store);
      built.set(name, view);
      view.section.hidden = true;
      if (store.get().view === name) show(store.get());
    },
    (e) => {
      coreStatus.viewLoading(null);
      dropPending(name);
      factories.delete(name); // choosing the tab again tries again
      messages.fatal(`the ${name} view could not load: ${e.message}`);
    },
  );
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
