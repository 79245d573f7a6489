// What every view shares: a section with a controls panel and a plots area, picking its own
// keys out of the store, and running its job — on every change, or on demand (Run, Cancel) —
// on its worker or another executor, with progress, and errors shown beside the control that
// caused them while the last good plots stay up (marked stale). defineView holds the update
// cycle (viewCycle), so a view's file holds only its controls, figures and drawing.
import { createBarPlot } from '../plots/barplot.js';
import { createHeatmap } from '../plots/heatmap.js';
import { createLinePlot } from '../plots/lineplot.js';
import { refusal } from '../state/combinations.js';
import { pick, settingOfField, viewNamed } from '../state/registry.js';
import { renderControls } from '../ui/controls.js';
import { reportRun } from '../ui/core-status.js';
import { el, reveal, scrollBox } from '../ui/dom.js';
import { renderMath } from '../ui/math.js';
import { setProse } from '../ui/prose.js';
import { SEED_WORDS, setSeedProse } from '../ui/seed-link.js';
import { nativeBox } from '../ui/native.js';
import { NARROW } from '../ui/primary.js';
import { markDrawn, markInput } from '../ui/timing.js';

// Re-exported so a view takes its helpers from kit alone (NARROW: the phone layout's width).
export { el, NARROW, pick };

/** A control's `show` rule: shown while the setting `key` is one of `values`. */
export const whenSettingIn =
  (key) =>
  (...values) =>
  (s) =>
    values.includes(s[key]);

/**
 * A page-local text input (never in the link): a labelled text box and a file input whose file
 * fills it. ids: `${id}` and `${id}-file`; the caller appends `elements` and listens.
 * @returns {{ area: HTMLTextAreaElement, file: HTMLInputElement, elements: HTMLElement[] }}
 */
export function pasteOrOpen({ id, label, placeholder, rows, fileLabel, accept }) {
  const area = el('textarea');
  area.id = id;
  area.rows = rows;
  area.placeholder = placeholder;
  const areaLabel = el('label', 'local-label', label);
  areaLabel.htmlFor = id;
  const file = el('input');
  file.type = 'file';
  file.accept = accept;
  file.id = `${id}-file`;
  const openLabel = el('label', 'local-label', fileLabel);
  openLabel.htmlFor = file.id;
  return { area, file, elements: [areaLabel, area, openLabel, file] };
}

/** The tab panel of the view `name` (<section id="view-NAME">) and its empty intro block. */
export function createViewSection(name) {
  const section = el('section', 'view');
  section.id = `view-${name}`;
  section.setAttribute('role', 'tabpanel');
  section.setAttribute('aria-labelledby', `tab-${name}`);
  return { section, intro: el('div', 'view-intro') };
}

/** Fills the intro of a view without controls (gallery, benchmarks): a heading and a note. */
export function textIntro(intro, title, note) {
  intro.append(el('h2', '', title), el('p', 'note', note));
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
 * The view's intro: an optional title, a KaTeX formula, a note (`code` in backticks) and a
 * Source note (where a claim the view checks comes from: a seed document of the gallery), all
 * text, never HTML. Returns the elements so a view whose method changes can update them.
 */
export function createIntro(shell, { title, tex, note, source, native } = {}) {
  const heading = document.createElement('h2');
  const formula = scrollBox('formula', 'formula'); // a formula wider than a phone scrolls in it
  const paragraph = document.createElement('p');
  paragraph.className = 'note';
  if (title !== undefined) heading.textContent = title;
  if (tex !== undefined) renderMath(formula, tex);
  if (note !== undefined) setProse(paragraph, note);
  shell.intro.append(...(title === null ? [] : [heading]), formula, paragraph);
  if (source !== undefined) shell.intro.append(sourceNote(source));
  if (native !== undefined) shell.intro.append(nativeBox(native).el);
  return { title: heading, formula, note: paragraph };
}

/** "Source: …": where a claim comes from, after the note. */
export function sourceNote(text) {
  const p = el('p', 'note source');
  p.append(el('strong', '', 'Source: '));
  const rest = el('span');
  p.append(rest);
  if (setSeedProse(rest, text)) p.append(el('span', 'seed-words', ` ${SEED_WORDS}`));
  return p;
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
  const { section, intro } = createViewSection(name);
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

// The message goes beside the control (or on the status line above the plots when no control
// caused it) and, when the person is working in this view, is scrolled into sight.
function showRefusal(shell, key, message) {
  const row = key && shell.controls.has(key) ? shell.controls.setError(key, message) : null;
  shell.status.textContent = notUpdated(shell, message);
  markStale(shell, true);
  const focused = shell.section.ownerDocument?.activeElement;
  if (focused && shell.section.contains(focused)) reveal(row ?? shell.status);
}

/**
 * Where a view's jobs run. `run` resolves with the job's result, or null when it was cancelled
 * or superseded; `cancel` stops the running job (an executor may then resolve with what
 * finished, a result marked `partial`).
 * @typedef {{ run: (job: string, params: any, o: { onProgress: (data: any) => void }) => Promise<any>,
 *   cancel: () => void }} Executor
 */

/** The default executor: the view's own channel on the compute scheduler (worker/client.js). */
export const channelExecutor = (compute, channel) => ({
  run: (job, params, { onProgress }) => compute.request(channel, job, params, { onProgress }),
  cancel: () => compute.cancel?.(channel),
});

/**
 * What a view's `build(shell, ctx)` returns: its drawing, and what it adds to the update cycle.
 * @typedef {object} ViewOwn
 * @property {(result: any, p: Record<string, any>) => void} draw draws a result for settings p
 * @property {(p: Record<string, any>, state: any) => void} [show] what changes with the
 *   settings before any compute
 * @property {(p: Record<string, any>) => any} [params] the job's input (default: p), where
 *   page-local inputs (a text, a loaded file) join the settings
 * @property {(p: Record<string, any>) => any} [key] what a result depends on (default: the
 *   params); a change outside it draws the last result again through `redraw`
 * @property {(result: any, p: Record<string, any>) => void} [redraw]
 * @property {(p: Record<string, any>) => string | null} [demand] run on demand: null computes
 *   at once; a string makes the settings wait for Run (shell.run), and is why, on the status
 *   line ('' says nothing); a change of key while a job runs cancels it
 * @property {(p: Record<string, any>) => Promise<any>} [cached] on demand: what is kept from
 *   an earlier run of these settings, drawn without Run (null: nothing; `partial`: Run has more to do)
 * @property {(p: Record<string, any>) => void} [start] a job starts
 * @property {(data: any, p: Record<string, any>) => void} [progress] a progress report of the running job
 * @property {(outcome: 'drawn' | 'cancelled' | 'failed') => void} [end] the running job ended
 * @property {(result: any) => Record<string, any>} [timing] more entries for the redraw's timing record
 * @property {Record<string, (message: string) => void>} [fieldErrors] where an error about a
 *   page-local input (a field that is no setting) is shown
 * @property {{ run?: HTMLButtonElement, cancel?: HTMLButtonElement }} [runButtons] Run and
 *   Cancel: wired to shell.run and shell.cancel, each enabled only when it can act
 */

/**
 * The update cycle of a view whose shell is made: pick the view's settings → show → sync the
 * controls → clear errors → guards (state/combinations.js) → job key → nothing when these
 * settings are drawn (or being computed), wait for Run when on demand → run the job on the
 * executor, with progress → draw, or show the error beside the control its field names
 * (registry: settingOfField) while the last good plots stay (marked stale). Only the newest
 * job's outcome is shown. Adds run(), cancel() and refresh() to the shell for build's controls.
 * @param {ReturnType<typeof createViewShell>} shell
 * @param {{ build: (shell: any, ctx: { store: any, compute: any }) => ViewOwn, job?: string,
 *   executor?: (ctx: { compute: any, shell: any }) => Executor }} spec job: default the registry's
 * @param {{ store?: any, compute?: any }} ctx
 */
export function viewCycle(shell, { build, job = shell.view?.job, executor }, { store, compute }) {
  if (!job && !executor) throw new Error(`the ${shell.view?.name} view names no job and no executor`);
  const exec = executor ? executor({ compute, shell }) : channelExecutor(compute, shell.prefix);
  let latest = null; // the state of the latest update
  let drawn = null; // { key, result }: what the plots show, when it is complete
  let running = null; // { id, key }: the job whose outcome is shown
  let jobs = 0;
  let restores = 0;

  const update = (state, { force = false } = {}) => cycle(state, force);
  Object.assign(shell, {
    /** Run: compute the settings now (on demand). */
    run: () => (latest ? update(latest, { force: true }) : Promise.resolve()),
    /** Cancel: stop the running job. */
    cancel: () => running && exec.cancel(),
    /** A page-local input changed (a text, a file): the cycle again on the same settings. */
    refresh: () => (latest ? update(latest) : Promise.resolve()),
  });
  const own = build(shell, { store, compute });
  const { run: runButton, cancel: cancelButton } = own.runButtons ?? {};
  runButton?.addEventListener('click', () => shell.run());
  cancelButton?.addEventListener('click', () => shell.cancel());
  const busy = (on) => {
    if (runButton) runButton.disabled = on;
    if (cancelButton) cancelButton.disabled = !on;
  };
  busy(false);

  const paramsOf = (p) => (own.params ? own.params(p) : p);
  const keyOf = (p) => JSON.stringify(own.key ? own.key(p) : paramsOf(p));
  const settingsNow = () => pick(latest, shell.prefix);

  // The running job is no longer wanted (the settings moved to a drawn, refused or waiting
  // key): its outcome is ignored; on demand it is cancelled, since it may take minutes.
  function drop() {
    if (!running) return;
    running = null;
    if (own.demand) exec.cancel();
    busy(false);
    own.end?.('cancelled');
  }

  async function show(result, p, key) {
    shell.status.textContent = '';
    const t0 = performance.now();
    own.draw(result, p);
    drawn = result.partial ? null : { key, result };
    await shell.settled();
    shell.drawn = true;
    markStale(shell, false);
    markDrawn(shell.prefix, { ...result.timing, ...own.timing?.(result), drawMs: performance.now() - t0 });
  }

  function showError(e, p) {
    // An error without a field (an older core, a failure about no one setting) most likely
    // comes from the control moved last; one whose field is no control here stays on the
    // status line, or goes beside the page-local input it names.
    const key = e.field === undefined ? shell.controls.lastKey : settingOfField(shell.view, e.field, p);
    if (!key && typeof e.field === 'string' && Object.hasOwn(own.fieldErrors ?? {}, e.field)) {
      own.fieldErrors[e.field](e.message);
    }
    showRefusal(shell, key, e.message);
  }

  // Runs the job for settings p; its outcome is shown only while it is the newest.
  function runJob(p, key) {
    const id = ++jobs;
    running = { id, key };
    busy(true);
    own.start?.(p);
    reportRun(shell.view.name, 'loading'); // the header names the engine and its state
    const current = () => running?.id === id;
    const onProgress = (data) => current() && own.progress?.(data, settingsNow());
    return exec.run(job, paramsOf(p), { onProgress }).then(
      async (result) => {
        if (!current()) return;
        running = null;
        busy(false);
        reportRun(shell.view.name, result === null ? 'cancelled' : 'ready');
        if (result === null) return own.end?.('cancelled');
        // Drawn with the settings now on the controls when the result is for them (a layer
        // picked, a smoothing moved while it ran).
        const now = settingsNow();
        await show(result, keyOf(now) === key ? now : p, key);
        own.end?.('drawn');
      },
      (e) => {
        if (!current()) return;
        running = null;
        busy(false);
        reportRun(shell.view.name, 'failed', e.message);
        showError(e, p);
        own.end?.('failed');
      },
    );
  }

  // On demand: what is kept of these settings from an earlier run, shown without Run.
  async function restore(p, key) {
    const ticket = ++restores;
    const result = await own.cached(p);
    if (ticket !== restores || running || keyOf(settingsNow()) !== key) return; // moved meanwhile
    if (result) await show(result, p, key);
  }

  function cycle(state, force) {
    latest = state;
    const p = pick(state, shell.prefix);
    own.show?.(p, state);
    shell.controls.sync(state);
    shell.controls.clearErrors();
    const refused = refusal(shell.prefix, p);
    if (refused) {
      drop();
      showRefusal(shell, refused.key, refused.message);
      return Promise.resolve();
    }
    const key = keyOf(p);
    if (drawn?.key === key) {
      drop();
      shell.status.textContent = '';
      markStale(shell, false);
      own.redraw?.(drawn.result, p);
      return Promise.resolve();
    }
    if (running?.key === key) return Promise.resolve(); // computing exactly this already
    const waits = force ? null : (own.demand?.(p) ?? null);
    if (waits !== null) {
      drop();
      shell.status.textContent = waits && notUpdated(shell, waits);
      return own.cached ? restore(p, key) : Promise.resolve();
    }
    return runJob(p, key);
  }

  return { section: shell.section, update };
}

/**
 * A view's factory ({ root, store, compute }) → { section, update }) from what is its own: its
 * controls and `build(shell, ctx)`, which makes its figures and returns `draw(result, p)` and
 * what else it adds to the cycle (ViewOwn: show, params, key, redraw, demand, cached, progress…).
 * viewCycle carries the cycle; `job` names another job than the registry's, `executor` where
 * jobs run instead of the view's worker channel (the training view's pool).
 * @param {string} name the view's name in the registry
 * @param {{ controls: import('../ui/controls.js').ControlSpec[],
 *   build: (shell: ReturnType<typeof createViewShell>, ctx: { store: any, compute: any }) => ViewOwn,
 *   job?: string, executor?: (ctx: { compute: any, shell: any }) => Executor }} spec
 */
export function defineView(name, { controls, ...spec }) {
  function createView({ root, store, compute }) {
    const shell = createViewShell({ root, store, name, specs: controls });
    return viewCycle(shell, spec, { store, compute });
  }
  // What it runs and offers, readable without building it (tests check that the job exists and
  // that each control's choices are its setting's).
  return Object.assign(createView, {
    job: spec.job ?? viewNamed(name)?.job,
    executor: spec.executor ?? null,
    controls,
  });
}
