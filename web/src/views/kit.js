// What every view shares: a section with a controls panel and a plots area, picking its own
// keys out of the store, and running its job on the worker with errors shown beside the
// control that caused them while the last good plots stay up (marked stale).
import { refusal } from '../state/combinations.js';
import { renderControls } from '../ui/controls.js';
import { renderMath } from '../ui/math.js';
import { markDrawn, markInput } from '../ui/timing.js';

/** A new element with an optional class and text. */
export function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The frame of a figure drawn without a chart: <figure class="fig …"> with a titled caption. */
export function plainFigure(className) {
  const fig = el('figure', `fig ${className}`);
  const caption = el('figcaption');
  const title = el('span', 'fig-title');
  caption.append(title);
  fig.append(caption);
  return { fig, caption, title };
}

/**
 * The view's intro: an optional title, a KaTeX formula and a note (all text, never HTML).
 * Returns the three elements so a view whose method changes can update them.
 */
export function createIntro(shell, { title, tex, note } = {}) {
  const heading = document.createElement('h2');
  const formula = document.createElement('div');
  formula.className = 'formula';
  const paragraph = document.createElement('p');
  paragraph.className = 'note';
  if (title !== undefined) heading.textContent = title;
  if (tex !== undefined) renderMath(formula, tex);
  if (note !== undefined) paragraph.textContent = note;
  shell.intro.append(...(title === null ? [] : [heading]), formula, paragraph);
  return { title: heading, formula, note: paragraph };
}

/** The view's own state without its prefix: { 'enc.L': 50 } → { L: 50 }. */
export function pick(state, prefix) {
  const out = {};
  for (const [key, value] of Object.entries(state)) {
    if (key.startsWith(`${prefix}.`)) out[key.slice(prefix.length + 1)] = value;
  }
  return out;
}

/**
 * @param {{ root: HTMLElement, store: any, compute: any, name: string, prefix: string,
 *   intro?: (el: HTMLElement) => void, specs: import('../ui/controls.js').ControlSpec[] }} o
 */
export function createViewShell({ root, store, name, prefix, specs }) {
  const section = document.createElement('section');
  section.className = 'view';
  section.id = `view-${name}`;
  section.setAttribute('role', 'tabpanel');
  section.setAttribute('aria-labelledby', `tab-${name}`);
  const intro = document.createElement('div');
  intro.className = 'view-intro';
  const panel = document.createElement('form');
  panel.className = 'controls';
  panel.setAttribute('aria-label', `${name} controls`);
  panel.addEventListener('submit', (e) => e.preventDefault());
  const status = document.createElement('p');
  status.className = 'view-status';
  status.setAttribute('role', 'status');
  const plots = document.createElement('div');
  plots.className = 'plots';
  section.append(intro, panel, status, plots);
  root.append(section);
  const controls = renderControls(panel, specs, store, { onInput: markInput });
  return { section, intro, panel, status, plots, controls, prefix, drawn: false };
}

/**
 * The status line of an update that was refused: it points at the last good plots only when
 * the view has drawn some (shell.drawn).
 */
export function notUpdated(shell, message, { verb = 'updated', what = 'settings' } = {}) {
  if (!shell.drawn) return `Not ${verb === 'updated' ? 'drawn' : verb}: ${message}.`;
  return `Not ${verb}: ${message}. The plots show the last good ${what}.`;
}

function showRefusal(shell, figures, key, message) {
  if (key && shell.controls.has(key)) shell.controls.setError(key, message);
  shell.status.textContent = notUpdated(shell, message);
  for (const f of figures()) f.setStale(true);
}

/**
 * Runs a job for a view and hands the result to draw(), or shows the error. Settings refused
 * together (state/combinations.js) are shown without asking the worker.
 * @returns {Promise<boolean>} true when drawn
 */
export async function runJob({ shell, compute, job, params, draw, figures, errorKey }) {
  const refused = refusal(shell.prefix, params);
  if (refused) {
    showRefusal(shell, figures, refused.key, refused.message);
    return false;
  }
  let result;
  try {
    result = await compute.request(shell.prefix, job, params);
  } catch (e) {
    showRefusal(shell, figures, errorKey?.(e.message) ?? shell.controls.lastKey, e.message);
    return false;
  }
  if (result === null) return false; // superseded by a newer request
  shell.status.textContent = '';
  const t0 = performance.now();
  draw(result);
  shell.drawn = true;
  for (const f of figures()) f.setStale(false);
  markDrawn(shell.prefix, { ...result.timing, drawMs: performance.now() - t0 });
  return true;
}
