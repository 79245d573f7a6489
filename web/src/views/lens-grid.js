// The Position lens's grid figure: every layer × head of a model as a button coloured by the
// head's role (content/lens-roles.js), with the role's letter (and, for RoPE models, the band's
// mark) so colour is not the only cue; a second grid beside it in compare mode; the legend
// with the thresholds the report used and the role counts. Clicking (or Enter on) a cell picks
// that head. The cells' colours and layout are set on the elements, so the figure reads the
// same in an embed's shadow root, which carries the page's main stylesheet only.
import { ROLES, roleOf } from '../content/lens-roles.js';
import { el, plainFigure } from './kit.js';
import { reportShape } from '../state/lens-head.js';
import { bandsText, cellText, roleCountsText } from './lens-report.js';

/**
 * @param {HTMLElement} parent
 * @param {{ onPick: (layer: number, head: number) => void }} opts
 */
export function createLensGrid(parent, { onPick }) {
  const { fig, caption, title } = plainFigure('lens-grid');
  fig.dataset.figure = 'grid';
  title.textContent = 'Head roles';
  caption.append(el('span', 'fig-actions'));
  const grids = el('div', 'lens-grids');
  const legend = el('ul', 'lens-legend');
  const note = el('p', 'fig-note');
  fig.append(grids, legend, note);
  parent.append(fig);

  let cells = []; // every cell button, in both grids

  function oneGrid(report, name) {
    const [N, H] = reportShape(report);
    const box = el('div', 'lens-one');
    box.append(el('p', 'lens-grid-title', name));
    const scroller = el('div', 'lens-grid-scroll');
    const table = el('div', 'lens-cells');
    table.setAttribute('role', 'group');
    table.setAttribute('aria-label', `${name}: heads by layer`);
    Object.assign(table.style, {
      display: 'grid',
      gridTemplateColumns: `auto repeat(${H}, minmax(34px, 48px))`,
      gap: '3px',
      alignItems: 'center',
      width: 'max-content',
    });
    table.append(el('span'));
    for (let h = 0; h < H; h++) table.append(el('span', 'lens-axis', `h${h}`));
    const byPlace = new Map(report.heads.map((x) => [`${x.layer}.${x.head}`, x]));
    for (let l = 0; l < N; l++) {
      table.append(el('span', 'lens-axis', `L${l}`));
      for (let h = 0; h < H; h++) {
        const head = byPlace.get(`${l}.${h}`);
        const cell = el('button', 'lens-cell');
        cell.type = 'button';
        cell.dataset.layer = String(l);
        cell.dataset.head = String(h);
        if (head) {
          const role = roleOf(head.role);
          const { text, name: label } = cellText(head);
          cell.textContent = text;
          // The name starts with what the cell shows (WCAG 2.5.3: a voice user says what they see).
          cell.setAttribute('aria-label', `${text} ${label}`);
          cell.title = label;
          Object.assign(cell.style, { background: role.colour, color: role.ink });
        } else {
          cell.textContent = '–';
          cell.setAttribute('aria-label', `layer ${l}, head ${h}: not in the report`);
        }
        Object.assign(cell.style, {
          height: '34px',
          border: '1px solid rgba(0, 0, 0, 0.35)',
          borderRadius: '4px',
          font: '600 0.85rem ui-monospace, Menlo, monospace',
          cursor: 'pointer',
        });
        cell.addEventListener('click', () => onPick(l, h));
        table.append(cell);
        cells.push(cell);
      }
    }
    scroller.append(table);
    box.append(scroller, el('p', 'lens-counts', roleCountsText(report.role_counts)));
    return box;
  }

  function legendFor(report) {
    legend.replaceChildren();
    for (const r of ROLES) {
      const item = el('li');
      const swatch = el('span', 'lens-swatch', r.letter);
      Object.assign(swatch.style, {
        display: 'inline-block',
        minWidth: '1.6em',
        textAlign: 'center',
        background: r.colour,
        color: r.ink,
        borderRadius: '3px',
        marginRight: '6px',
        font: '600 0.8rem ui-monospace, Menlo, monospace',
      });
      item.append(swatch, el('strong', '', r.label), `: ${r.rule(report.thresholds)}`);
      legend.append(item);
    }
    const b = report.rope_bands;
    note.textContent = 'A head takes the first role whose score reaches its threshold.' + (b ? ` ${bandsText(b)}` : '');
  }

  return {
    figure: fig,
    /** Every cell, both grids. */
    get cells() {
      return cells;
    },
    /** One grid per { report, name }, side by side; the legend of the first. */
    update(list, caption) {
      cells = [];
      grids.replaceChildren(...list.map(({ report, name }) => oneGrid(report, name)));
      title.textContent = caption;
      legendFor(list[0].report);
    },
    select(layer, head) {
      for (const c of cells) {
        const on = Number(c.dataset.layer) === layer && Number(c.dataset.head) === head;
        c.setAttribute('aria-pressed', String(on));
        c.style.boxShadow = on ? '0 0 0 3px var(--fg, #000)' : 'none';
      }
    },
    setStale(stale) {
      fig.classList.toggle('stale', stale);
    },
  };
}
