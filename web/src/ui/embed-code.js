// "Embed" on every plot of the playground: opens a panel under the figure with both embed
// snippets (iframe and <poslab-figure>) for the current state, each with a copy button,
// scrolled into sight.
// Snippets go into read-only textareas through .value: they are shown, never parsed as HTML.
import { plotFor } from '../embed/plots.js';
import { embedSnippets } from '../embed/snippets.js';
import { reveal } from './dom.js';

/** An export-styled button named `label` for screen readers. */
function button(text, label, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'export';
  b.textContent = text;
  b.setAttribute('aria-label', label);
  b.addEventListener('click', onClick);
  return b;
}

function snippetBox(label, text) {
  const row = document.createElement('div');
  row.className = 'embed-snippet';
  const name = document.createElement('label');
  name.textContent = label;
  const area = document.createElement('textarea');
  area.readOnly = true;
  area.rows = 3;
  area.spellcheck = false;
  area.value = text;
  name.append(area);
  const done = document.createElement('span');
  done.className = 'embed-copied';
  done.setAttribute('role', 'status');
  const copy = button('Copy', `Copy ${label}`, async () => {
    area.select();
    try {
      await navigator.clipboard.writeText(area.value);
      done.textContent = 'copied';
    } catch {
      done.textContent = 'selected: press Ctrl+C'; // no clipboard permission (or no https)
    }
  });
  row.append(name, copy, done);
  return row;
}

function attach(fig, plot, store) {
  fig.dataset.embedButton = plot;
  const panel = document.createElement('div');
  panel.className = 'embed-code';
  panel.hidden = true;
  fig.append(panel);
  const b = button('Embed', 'Copy embed code', () => {
    panel.hidden = !panel.hidden;
    b.setAttribute('aria-expanded', String(!panel.hidden));
    if (panel.hidden) return;
    const s = embedSnippets({ state: store.get(), plot }, new URL('./', window.location.href));
    panel.replaceChildren(
      snippetBox('iframe (with the resize script)', s.iframe),
      snippetBox('custom element', s.element),
    );
    reveal(panel); // it opens under the figure, often below the fold: a click must show something
  });
  b.setAttribute('aria-expanded', 'false');
  fig.querySelector('.fig-actions')?.append(b);
}

/**
 * Adds the button to every figure of a view's section, also to figures added later: the
 * figure's own plot when the registry names one for it, else the whole view.
 */
export function addEmbedButtons(section, view, store) {
  const scan = () => {
    section.querySelectorAll('.fig').forEach((fig) => {
      if (fig.dataset.embedButton) return;
      const plot = plotFor(view, fig.dataset.figure);
      if (plot) attach(fig, plot, store);
    });
  };
  new MutationObserver(scan).observe(section, { childList: true, subtree: true });
  scan();
}
