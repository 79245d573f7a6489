// The Train short, test long view's figures: held-out loss by context per method, RoPE's model
// under each inference-time scaling, the training loss, and the table with the papers' claims
// judged on the curves drawn (lab/text-claims.js). Each draw takes the runs shown.
import { methodStyle } from '../lab/method-styles.js';
import { METHODS } from '../lab/presets.js';
import { smoothLoss } from '../lab/smoothing.js';
import { findings, REFERENCE } from '../lab/text-claims.js';
import { el } from '../ui/dom.js';
import { trainingLoss } from './loss-axes.js';

const SCALING_STYLE = {
  none: { label: 'RoPE as trained', color: '#555555', dashed: false },
  linear: { label: 'linear (PI)', dashed: true },
  ntk: { label: 'NTK', dashed: true },
  dynamic: { label: 'dynamic NTK', dashed: true },
  yarn: { label: 'YaRN', dashed: true },
};
const SCALING_COLOURS = { linear: '#D55E00', ntk: '#009E73', dynamic: '#56B4E9', yarn: '#CC79A7' };

// Both context figures plot the held-out loss against the context, so they share their axes.
const CONTEXT_AXES = { xTitle: 'context (bytes, log scale)', yTitle: 'loss (nats per byte)' };

export const methodName = (id) => METHODS.find((m) => m.id === id)?.label ?? id;
const fmt = (x) => (x === null || x === undefined ? 'n/a' : x.toFixed(2));
const nullToNaN = (l) => Float64Array.from(l, (x) => (x === null ? NaN : x));

/** The view's three figures, declared on its shell. */
export function createTextFigures(shell) {
  return {
    byContext: shell.lines('context', { title: 'Held-out loss by context', ...CONTEXT_AXES, height: 320 }),
    scaling: shell.lines('scaling', { title: 'RoPE with each scaling, no fine-tuning', ...CONTEXT_AXES, height: 300 }),
    loss: shell.lines('loss', { ...trainingLoss('nats per byte'), height: 240 }),
  };
}

/** What the runs shown measured: contexts, each method's losses, RoPE's under each scaling. */
export function measured(rows) {
  if (!rows.length) return null;
  const contexts = rows[0].result.perplexity_by_context.map((r) => r.context);
  const losses = new Map(rows.map((r) => [r.method, r.result.perplexity_by_context.map((x) => x.loss)]));
  const rope = rows.find((r) => r.method === 'rope')?.result.perplexity_by_context_with_scaling;
  const scalingLosses = rope
    ? Object.fromEntries(Object.entries(rope).map(([k, l]) => [k, l.map((x) => x.loss)]))
    : null;
  return { contexts, N: contexts[0], losses, scaling: scalingLosses, names: methodName };
}

/** Loss by context per method, and RoPE's under each scaling (hidden without RoPE). */
export function drawCurves({ byContext, scaling }, m, source) {
  const refLines = [{ axis: 'x', value: m.N, label: `trained context ${m.N}` }];
  // The line picker brings the first line forward: one with a value at every context, so a
  // learned table's lone point at N never leads.
  const complete = (l) => l.every((x) => x !== null);
  const order = [...m.losses].sort(([, a], [, b]) => complete(b) - complete(a));
  byContext.update(
    order.map(([id, l]) => ({
      label: methodName(id),
      ...methodStyle(id),
      x: Float64Array.from(m.contexts),
      y: nullToNaN(l),
    })),
    { logX: true, refLines },
  );
  const learned = m.losses.get('learned');
  byContext.figure.setNote(
    (learned ? 'Learned positions: n/a past N, a table has no row there. ' : '') +
      (source === 'example' ? 'The bundled native run (see above).' : ''),
  );
  scaling.figure.el.hidden = !m.scaling;
  if (!m.scaling) return;
  const rope = m.losses.get('rope');
  scaling.update(
    [
      { ...SCALING_STYLE.none, x: Float64Array.from(m.contexts), y: nullToNaN(rope) },
      ...Object.entries(m.scaling).map(([k, l]) => ({
        ...SCALING_STYLE[k],
        color: SCALING_COLOURS[k],
        x: Float64Array.from(m.contexts),
        y: nullToNaN(l),
      })),
    ],
    { logX: true, refLines },
  );
}

/** The training loss of `runs` ({ method, curve }); `own`: this setting's runs, not the example's. */
export function drawLoss(loss, runs, own) {
  loss.figure.el.hidden = !runs.length;
  loss.update(
    runs.map((r) => ({ label: methodName(r.method), ...methodStyle(r.method), ...smoothLoss(r.curve) })),
    {},
  );
  loss.figure.setNote(
    own
      ? 'Each run’s loss, smoothed over a fiftieth of its steps.'
      : 'The bundled native run’s (every tenth step), smoothed.',
  );
}

/** The table of losses by context per run shown (`done`: this browser's runs, for their time). */
export function drawTable(table, m, runs, done) {
  table.replaceChildren();
  const head = el('tr');
  for (const h of ['method', ...m.contexts.map(String), 'time (s)']) head.append(el('th', '', h));
  head.children[1].title = 'the trained context';
  table.append(head);
  for (const r of runs) {
    const tr = el('tr');
    tr.append(el('td', '', methodName(r.method)));
    for (const row of r.result.perplexity_by_context) {
      const td = el('td', '', fmt(row.loss));
      if (row.loss !== null) td.title = `perplexity ${row.perplexity.toFixed(2)} per byte`;
      tr.append(td);
    }
    const run = done.get(r.method);
    const time = r.native
      ? `${r.result.wall_time_s.toFixed(0)} (native)`
      : run?.workerSeconds
        ? run.workerSeconds.toFixed(0)
        : 'cached';
    tr.append(el('td', '', time));
    table.append(tr);
  }
}

/** The papers' claims, each judged on what was measured, and a reference for scale. */
export function drawPapers(papers, m) {
  papers.replaceChildren(el('h3', '', 'What the papers report, and what we measured'));
  for (const f of findings(m)) {
    const para = el('p', `note tl-finding tl-${f.verdict}`);
    const verdict = { agrees: 'Agrees', disagrees: 'Does not agree', untested: 'Not tested' }[f.verdict];
    para.textContent = `${f.cite}: ${f.claim}. ${verdict}: ${f.said}`;
    papers.append(para);
  }
  const ref = el('p', 'note tl-reference');
  ref.textContent =
    `For scale, ${REFERENCE.setting}, at contexts ${REFERENCE.contexts.join(' / ')}: ` +
    REFERENCE.rows.map(([, name, v]) => `${name} ${v.map((x) => x.toFixed(2)).join(' / ')}`).join('; ') +
    '.';
  papers.append(ref);
}
