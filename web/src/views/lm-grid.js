// The GPT-2 "model view": every layer × head as a small attention map (rows = layers,
// columns = heads), drawn from the bitmaps the worker painted. With grouped-query attention
// each column says which key/value head it shares, and the groups alternate in shade. Plain canvases, not charts:
// GPT-2 small has 144 of them. Clicking (or Enter on) a map picks that layer and head.
import { el, plainFigure } from './kit.js';

const PIXELS = 96; // backing size of each thumbnail (CSS decides how large it shows)

/**
 * @param {HTMLElement} parent
 * @param {{ onPick: (layer: number, head: number) => void }} opts
 */
export function createHeadGrid(parent, { onPick }) {
  const { fig, title } = plainFigure('lm-grid');
  const scroller = el('div', 'lm-grid-scroll');
  const cells = el('div', 'lm-grid-cells');
  cells.setAttribute('role', 'group');
  scroller.append(cells);
  const note = el('p', 'fig-note');
  note.textContent =
    'Rows are layers, columns heads; each map is query (down) × key (across), 0 (dark) to 1 (yellow). Click one to open it with token labels.';
  fig.append(scroller, note);
  parent.append(fig);

  let shape = null; // "N×H×K" the cells were built for
  let thumbs = []; // [layer][head] → canvas

  function build(N, H, K) {
    cells.replaceChildren();
    cells.style.gridTemplateColumns = `auto repeat(${H}, minmax(28px, 72px))`;
    cells.append(document.createElement('span'));
    const g = H / K; // query heads per key/value head
    for (let h = 0; h < H; h++) {
      const kv = Math.floor(h / g);
      const th = el('span', 'lm-grid-head', g > 1 ? `h${h} kv${kv}` : `h${h}`);
      if (g > 1) {
        th.title = `query head ${h} uses key/value head ${kv}, shared by ${g} query heads`;
        th.classList.toggle('lm-kv-odd', kv % 2 === 1);
      }
      cells.append(th);
    }
    thumbs = [];
    for (let l = 0; l < N; l++) {
      const th = el('span', 'lm-grid-layer', `L${l}`);
      cells.append(th);
      const row = [];
      for (let h = 0; h < H; h++) {
        const c = el('canvas');
        c.width = PIXELS;
        c.height = PIXELS;
        c.className = 'lm-thumb';
        c.dataset.layer = String(l);
        c.dataset.head = String(h);
        c.tabIndex = 0;
        c.setAttribute('role', 'button');
        c.setAttribute('aria-label', `layer ${l}, head ${h}: open the full map`);
        c.addEventListener('click', () => onPick(l, h));
        c.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            onPick(l, h);
            e.preventDefault();
          }
        });
        cells.append(c);
        row.push(c);
      }
      thumbs.push(row);
    }
    shape = `${N}×${H}×${K}`;
    note.textContent =
      'Rows are layers, columns heads; each map is query (down) × key (across), 0 (dark) to 1 (yellow). Click one to open it with token labels.' +
      (g > 1
        ? ` Grouped-query attention: each of the ${K} key/value heads serves ${g} query heads (kv0 … kv${K - 1} above the columns), so heads of one group share their keys and values.`
        : '');
  }

  return {
    figure: fig,
    /** Every canvas, layer-major. */
    get canvases() {
      return thumbs.flat();
    },
    setStale(stale) {
      fig.classList.toggle('stale', stale);
    },
    /**
     * @param {number} N layers
     * @param {number} H heads
     * @param {(l: number, h: number) => { bitmap?: ImageBitmap, rgba?: Uint8ClampedArray, rows: number, cols: number }} map
     * @param {number} [K] key/value heads (grouped-query attention), H by default
     */
    update(N, H, map, K = H) {
      title.textContent = `Every head: ${N} layers × ${H} heads = ${N * H} attention maps`;
      if (shape !== `${N}×${H}×${K}`) build(N, H, K);
      for (let l = 0; l < N; l++) {
        for (let h = 0; h < H; h++) draw(thumbs[l][h], map(l, h));
      }
    },
    select(layer, head) {
      for (const c of thumbs.flat()) {
        const on = Number(c.dataset.layer) === layer && Number(c.dataset.head) === head;
        c.classList.toggle('selected', on);
        c.setAttribute('aria-pressed', String(on));
      }
    },
  };
}

function draw(canvas, m) {
  const ctx = canvas.getContext('2d');
  ctx.imageSmoothingEnabled = false; // one crisp square per cell
  let image = m.bitmap;
  if (!image) {
    image = el('canvas');
    image.width = m.cols;
    image.height = m.rows;
    image.getContext('2d').putImageData(new ImageData(m.rgba, m.cols, m.rows), 0, 0);
  }
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
  m.bitmap?.close?.(); // drawn once; the data stays for the full map
}
