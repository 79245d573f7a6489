// The frame every plot sits in: a title, export buttons, the canvas, a live readout of the
// hovered value and a note line. All text goes in through textContent.
import { download, slug } from '../export/download.js';

/**
 * @param {HTMLElement} parent
 * @param {{ title: string, height?: number, exports?: { csv?: () => string, npy?: () => Uint8Array,
 *   json?: () => string } }} opts json: the figure's data as the tool that made it writes it
 */
export function createFigure(parent, { title, height = 320, exports = {} }) {
  const el = document.createElement('figure');
  el.className = 'fig';
  const caption = document.createElement('figcaption');
  const heading = document.createElement('span');
  heading.className = 'fig-title';
  heading.textContent = title;
  const actions = document.createElement('span');
  actions.className = 'fig-actions';
  caption.append(heading, actions);

  const box = document.createElement('div');
  box.className = 'canvas-box';
  box.style.height = `${height}px`;
  const canvas = document.createElement('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', title);
  box.append(canvas);

  const readout = document.createElement('output');
  readout.className = 'readout';
  readout.setAttribute('aria-live', 'polite');
  readout.textContent = '\u00a0';
  const note = document.createElement('p');
  note.className = 'fig-note';
  note.hidden = true;
  el.append(caption, box, readout, note);
  parent.append(el);

  const figure = {
    el,
    canvas,
    box,
    get title() {
      return heading.textContent;
    },
    setTitle(text) {
      heading.textContent = text;
      canvas.setAttribute('aria-label', text);
    },
    setReadout(text) {
      readout.textContent = text || '\u00a0';
    },
    setNote(text) {
      note.textContent = text ?? '';
      note.hidden = !text;
    },
    /** Marks the plot as out of date (the last compute failed) without clearing it. */
    setStale(stale) {
      el.classList.toggle('stale', stale);
    },
    exports,
  };

  const button = (label, what, run) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'export';
    b.textContent = label;
    // The name starts with the visible label (WCAG 2.5.3, label in name).
    b.setAttribute('aria-label', `${label}: export ${what} of ${title}`);
    b.addEventListener('click', run);
    actions.append(b);
  };
  button('PNG', 'PNG image', () =>
    canvas.toBlob((blob) => blob && download(`${slug(figure.title)}.png`, blob), 'image/png'),
  );
  if (exports.csv)
    button('CSV', 'CSV data', () =>
      download(`${slug(figure.title)}.csv`, new Blob([exports.csv()], { type: 'text/csv' })),
    );
  if (exports.npy)
    button('.npy', 'NumPy array', () =>
      download(`${slug(figure.title)}.npy`, new Blob([exports.npy()], { type: 'application/octet-stream' })),
    );
  if (exports.json)
    button('JSON', 'JSON data', () =>
      download(`${slug(figure.title)}.json`, new Blob([exports.json()], { type: 'application/json' })),
    );
  return figure;
}
