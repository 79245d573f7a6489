// Draws one embedded plot: the playground's own view (same controls, same compute jobs, same
// picture), with everything but the chosen figure switched off, the controls shown or hidden,
// the problems found in the settings on a message line (text only), and a link back to the
// full playground with the same state. Used by embed.html and by <poslab-figure>.
import { serialiseHash } from '../state/url.js';
import { createStore } from '../state/store.js';
import { idOf } from '../ui/controls.js';
import { disableMath } from '../ui/math.js';
import { loadView } from '../views/loaders.js';
import { PLOTS } from './plots.js';
import { redrawSurfaces } from '../plots/surface.js';

// Formulas are part of the playground's intro, which embeds leave out: KaTeX never loads.
disableMath();

/**
 * @param {HTMLElement} parent where the figure goes (a page's body or a shadow root's div)
 * @param {{ request: Function }} compute a compute client (channels private to this figure)
 * @param {{ appBase?: string | URL, onDrawn?: () => void }} opts appBase: the playground the
 *   "Open in PosLab" link goes to (none: no link)
 */
export function mountEmbed(parent, compute, { appBase, onDrawn }) {
  const wrap = document.createElement('div');
  wrap.className = 'poslab-embed';
  const message = document.createElement('p');
  message.className = 'embed-msg';
  message.setAttribute('role', 'status');
  message.hidden = true;
  const host = document.createElement('div');
  const foot = document.createElement('p');
  foot.className = 'embed-foot';
  const link = document.createElement('a');
  link.target = '_blank';
  link.rel = 'noopener';
  link.textContent = 'Open in PosLab ↗';
  foot.append(link);
  wrap.append(message, host, foot);
  parent.append(wrap);

  let drawCount = 0;
  // A view draws synchronously right after the request resolves: a task later it is on screen.
  const tracked = {
    cancel: (channel) => compute.cancel?.(channel),
    request: (channel, job, params, opts) =>
      compute.request(channel, job, params, opts).then(
        (r) => {
          if (r)
            setTimeout(() => {
              wrap.dataset.drawn = String(++drawCount);
              onDrawn?.();
            }, 0);
          return r;
        },
        (e) => {
          setTimeout(() => onDrawn?.(), 0);
          throw e;
        },
      ),
  };

  let current = null; // { name, store, view, section }
  let settings = null;

  foot.hidden = !appBase;
  const setLink = (state) => {
    if (!appBase) return;
    const url = new URL('index.html', appBase);
    url.hash = serialiseHash(state);
    link.href = url.href;
  };

  let asked = 0; // render calls so far: a view that arrives late is built for the newest only

  /** Shows `s` (from parseEmbedHash / parseFigureAttributes); the view's code loads on first use. */
  function render(s) {
    settings = s;
    const ticket = ++asked;
    const { view } = PLOTS[s.plot];
    if (current?.name === view) return apply(s);
    loadView(view).then(
      (factory) => {
        if (ticket !== asked) return;
        host.replaceChildren();
        const store = createStore(s.state);
        const v = factory({ root: host, store, compute: tracked });
        // The playground folds its settings on narrow screens; an embed shows them or hides them.
        v.section.querySelector('.controls-fold')?.setAttribute('open', '');
        current = { name: view, store, view: v };
        store.subscribe((state) => {
          setLink(state);
          v.update(state);
        });
        apply(s);
      },
      (e) => {
        message.textContent = `PosLab could not load its plotting code: ${e?.message ?? e}`;
        message.hidden = false;
      },
    );
  }

  function apply(s) {
    const { figure } = PLOTS[s.plot];
    const changed = current.store.set(s.state, { source: 'embed' });
    wrap.classList.toggle('no-controls', !s.controls);
    const dark =
      s.state.theme === 'dark' ||
      (s.state.theme === 'auto' && window.matchMedia?.('(prefers-color-scheme: dark)').matches);
    const theme = dark ? 'dark' : 'light';
    if (wrap.dataset.theme !== theme) {
      wrap.dataset.theme = theme;
      redrawSurfaces(); // the plots read their colours from the theme's CSS variables
    }
    const section = current.view.section;
    section
      .querySelectorAll('.fig')
      .forEach((f) => f.classList.toggle('embed-off', figure !== null && f.dataset.figure !== figure));
    section
      .querySelectorAll('.plots > :not(.fig)')
      .forEach((el) => el.classList.toggle('embed-off', figure !== null && !el.querySelector('.fig:not(.embed-off)')));
    section.querySelectorAll('.control').forEach((row) => row.classList.remove('embed-off'));
    for (const key of s.hidden)
      section
        .querySelector(`#${idOf(key)}`)
        ?.closest('.control')
        ?.classList.add('embed-off');
    message.textContent =
      s.problems.slice(0, 5).join(' · ') + (s.problems.length > 5 ? ` · … ${s.problems.length - 5} more` : '');
    message.hidden = s.problems.length === 0;
    setLink(current.store.get());
    if (!changed.length) current.view.update(current.store.get()); // else the subscriber did
  }

  return {
    render,
    el: wrap,
    get settings() {
      return settings;
    },
  };
}
