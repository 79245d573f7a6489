// What every view shares: a section with a controls panel and a plots area, picking its own
// keys out of the store, and running its job on the worker with errors shown beside the
// control that caused them while the last good plots stay up (marked stale). defineView
// holds the update cycle, so a view's file holds only its controls, figures and drawing.
import { createBarPlot } from '../plots/barplot.js';
import { createHeatmap } from '../plots/heatmap.js';
import { createLinePlot } from '../plots/lineplot.js';
import { refusal } from '../state/combinations.js';
import { pick, settingOfField, viewNamed } from '../state/registry.js';
import { renderControls } from '../ui/controls.js';
import { renderMath } from '../ui/math.js';
import { markDrawn, markInput } from '../ui/timing.js';

/** Screens this narrow get the one-column phone layout (styles/main.css uses the same width). */
export const NARROW = '(max-width: 760px)';

export { pick };

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

/**
 * The section of the registry's view `name`: intro, controls panel, status line, plots.
 * `shell.heatmap / lines / bars(name, options, parent = plots)` make a plot whose frame carries
 * its stable figure name from the registry (what embeds and their Embed buttons address).
 * @param {{ root: HTMLElement, store: any, name: string,
 *   specs: import('../ui/controls.js').ControlSpec[] }} o
 */
export function createViewShell({ root, store, name, specs }) {
  const view = viewNamed(name);
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
  // On a phone the plots come first and the settings fold under a "Settings" summary, closed
  // at start (the CSS puts them in that order); on wider screens the panel is always open and
  // the summary hidden.
  const fold = document.createElement('details');
  fold.className = 'controls-fold';
  const summary = document.createElement('summary');
  summary.textContent = 'Settings';
  fold.append(summary, panel);
  fold.open = !window.matchMedia?.(NARROW).matches;
  section.append(intro, fold, status, plots);
  root.append(section);
  const controls = renderControls(panel, specs, store, { onInput: markInput });
  const made = []; // every plot, so a job's end can wait for those still loading their drawing code
  const named =
    (create) =>
    (figureName, options, parent = plots) => {
      if (!Object.hasOwn(view.figures ?? {}, figureName)) throw new Error(`${name} declares no figure ${figureName}`);
      const plot = create(parent, options);
      plot.figure.el.dataset.figure = figureName;
      made.push(plot);
      return plot;
    };
  return {
    ...{ section, intro, panel, status, plots, controls, view, prefix: view.prefix, drawn: false },
    /** Resolves once every plot has drawn its last update (bar plots load Chart.js first). */
    settled: () => Promise.all(made.map((p) => p.drawn?.())),
    heatmap: named(createHeatmap),
    lines: named(createLinePlot),
    bars: named(createBarPlot),
  };
}

/**
 * The status line of an update that was refused: it points at the last good plots only when
 * the view has drawn some (shell.drawn).
 */
export function notUpdated(shell, message, { verb = 'updated', what = 'settings' } = {}) {
  if (!shell.drawn) return `Not ${verb === 'updated' ? 'drawn' : verb}: ${message}.`;
  return `Not ${verb}: ${message}. The plots show the last good ${what}.`;
}

const markStale = (shell, stale) => {
  for (const f of shell.plots.querySelectorAll('.fig')) f.classList.toggle('stale', stale);
};

function showRefusal(shell, key, message) {
  if (key && shell.controls.has(key)) shell.controls.setError(key, message);
  shell.status.textContent = notUpdated(shell, message);
  markStale(shell, true);
}

/**
 * Runs the view's job and hands the result to draw(), or shows the error beside the setting
 * its field names (registry: settingOfField). Settings refused together
 * (state/combinations.js) are shown without asking the worker.
 * @returns {Promise<boolean>} true when drawn
 */
export async function runJob({ shell, compute, params, draw }) {
  const refused = refusal(shell.prefix, params);
  if (refused) {
    showRefusal(shell, refused.key, refused.message);
    return false;
  }
  let result;
  try {
    result = await compute.request(shell.prefix, shell.view.job, params);
  } catch (e) {
    // An error without a field (an older core, a failure about no one setting) most likely
    // comes from the control moved last; one whose field is no control here stays on the status line.
    const key = e.field === undefined ? shell.controls.lastKey : settingOfField(shell.view, e.field, params);
    showRefusal(shell, key, e.message);
    return false;
  }
  if (result === null) return false; // superseded by a newer request
  shell.status.textContent = '';
  const t0 = performance.now();
  draw(result);
  await shell.settled();
  shell.drawn = true;
  markStale(shell, false);
  markDrawn(shell.prefix, { ...result.timing, drawMs: performance.now() - t0 });
  return true;
}

/**
 * A view's factory ({ root, store, compute }) → { section, update }) from what is its own: its
 * controls and `build(shell)`, which makes its figures and returns `draw(result, p)` and
 * optionally `show(p, state)` (what changes with the settings before any compute). The cycle:
 * pick the view's settings → show → sync the controls → clear errors → guards → skip when these
 * settings are drawn → run the registry's job → draw, or route the error to its control.
 * @param {string} name the view's name in the registry
 * @param {{ controls: import('../ui/controls.js').ControlSpec[],
 *   build: (shell: ReturnType<typeof createViewShell>, ctx: { store: any }) =>
 *     { draw: (result: any, p: Record<string, any>) => void, show?: (p: Record<string, any>, state: any) => void } }} own
 */
export function defineView(name, { controls, build }) {
  return function createView({ root, store, compute }) {
    const shell = createViewShell({ root, store, name, specs: controls });
    const own = build(shell, { store });
    let drawnFor = null;
    async function update(state) {
      const p = pick(state, shell.prefix);
      own.show?.(p, state);
      shell.controls.sync(state);
      shell.controls.clearErrors();
      const key = JSON.stringify(p);
      if (key === drawnFor) return;
      if (await runJob({ shell, compute, params: p, draw: (r) => own.draw(r, p) })) drawnFor = key;
    }
    return { section: shell.section, update };
  };
}
