// The Models view's text panels: token chips, the next-token table and the config table
// (GPT-2's with parameter counts per component; GPT-NeoX's keys with its total). Everything
// goes in through textContent.
import { architecture, parameterTotal } from '../lm/architectures.js';
import { formatCount, topRows, visibleToken } from '../lm/format.js';
import { parameterRows, shapeText } from '../lm/shapes.js';
import { el } from './kit.js';

/** Token chips: the visible text of each token with its id under it. */
export function renderChips(box, ids, pieces) {
  box.replaceChildren(
    ...ids.map((id, i) => {
      const chip = el('span', 'lm-chip');
      chip.title = `position ${i}, id ${id}`;
      chip.append(el('span', 'chip-text', visibleToken(pieces[i])), el('span', 'chip-id', String(id)));
      return chip;
    }),
  );
}

const table = (caption, head) => {
  const t = el('table', 'lm-table');
  t.append(el('caption', '', caption));
  const thead = el('thead');
  const tr = el('tr');
  for (const h of head) tr.append(el('th', '', h));
  thead.append(tr);
  const body = el('tbody');
  t.append(thead, body);
  return { t, body };
};

/** The top-10 next tokens after the last position, with a bar per probability. */
export function renderTopTable(box, top, lastPiece) {
  const { t, body } = table(`Most likely next tokens after “${visibleToken(lastPiece)}”`, [
    '#',
    'token',
    'id',
    'probability',
  ]);
  const pieces = new Map(top.ids.map((id, i) => [id, top.pieces[i]]));
  for (const r of topRows(top.ids, top.probs, (id) => pieces.get(id))) {
    const tr = el('tr');
    const bar = el('span', 'lm-bar');
    bar.style.width = `${Math.max(0, Math.min(1, r.probability)) * 100}%`;
    const p = el('td', 'num');
    p.append(el('span', '', r.percent), bar);
    tr.append(el('td', 'num', String(r.rank)), el('td', 'tok', r.text), el('td', 'num', String(r.id)), p);
    body.append(tr);
  }
  box.replaceChildren(t);
}

/** The config (HF keys) and the parameter count of every component (GPT-2) or in all. */
export function renderConfigTables(box, config, arch = 'gpt2') {
  const c = table('Config', ['key', 'value']);
  c.t.classList.add('lm-config');
  const cell = (v) => (typeof v === 'number' && v >= 1 ? formatCount(v) : String(v));
  for (const { key, label, value } of architecture(arch).configRows(config)) {
    const tr = el('tr');
    tr.dataset.key = key;
    tr.append(el('td', '', label), el('td', 'num', cell(value)));
    c.body.append(tr);
  }
  if (arch !== 'gpt2') {
    const tr = el('tr', 'subtotal');
    tr.dataset.key = 'parameters';
    tr.append(el('td', '', 'parameters'), el('td', 'num', formatCount(parameterTotal(config))));
    c.body.append(tr);
    return box.replaceChildren(c.t);
  }
  const values = { V: config.vocab_size, P: config.n_positions, E: config.n_embd };
  Object.assign(values, { '3E': 3 * values.E, '4E': 4 * values.E });
  const p = table('Parameters per component', ['component', 'shapes', 'parameters']);
  p.t.classList.add('lm-params');
  for (const r of parameterRows(config)) {
    const tr = el('tr', r.subtotal ? 'subtotal' : r.perBlock ? 'per-block' : '');
    tr.dataset.component = r.name;
    const shapes = r.shapes.map((s) => shapeText(s, values).numeric).join(' + ');
    tr.append(
      el('td', '', r.perBlock && !r.subtotal ? `  ${r.name} (per block)` : r.name),
      el('td', 'shape', shapes),
      el('td', 'num', formatCount(r.parameters)),
    );
    p.body.append(tr);
  }
  box.replaceChildren(c.t, p.t);
}
