// The frame the two training labs share (length-generalisation.js, text-lab.js): the methods'
// checkboxes; the row above the figures with Train / Stop, the progress line and whose runs are
// shown; the results below them (a table, the papers' claims, export buttons); and how a Train
// job's messages are shown. Both labs are styled by styles/lab.css.
import { download } from '../export/download.js';
import { applyProgress, trainingLine } from '../lab/runs.js';
import { el, scrollBox } from '../ui/dom.js';

// A lab's own class beside the shared lg-… one: the text lab (prefix 'tl') adds tl-… classes,
// which its tests look for.
const labClasses = (prefix, name) => (prefix === 'lg' ? `lg-${name}` : `lg-${name} ${prefix}-${name}`);

/**
 * The methods fieldset: a checkbox per method over the list setting `key`, of which at least
 * one stays checked. Each method is { id, text, name?, heading? }: `text` beside the box; `name`,
 * where given, its title and accessible name (for a short text that others repeat); `heading`,
 * where given, a group heading put before it. `show(ids)` checks the boxes of ids, no others.
 */
export function methodCheckboxes(store, key, methods) {
  const fieldset = el('fieldset', 'lg-methods');
  fieldset.append(el('legend', '', 'methods'));
  const boxes = new Map();
  for (const m of methods) {
    if (m.heading) fieldset.append(el('span', 'lg-methods-group', m.heading));
    const label = el('label');
    const input = el('input');
    input.type = 'checkbox';
    input.value = m.id;
    input.addEventListener('change', () => {
      const ids = [...boxes].filter(([, box]) => box.checked).map(([id]) => id);
      if (ids.length) store.set({ [key]: ids }, { source: 'control' });
      else input.checked = true; // at least one method
    });
    boxes.set(m.id, input);
    label.append(input, m.text);
    if (m.name) {
      label.title = m.name;
      input.setAttribute('aria-label', m.name);
    }
    fieldset.append(label);
  }
  const show = (ids) => {
    const checked = new Set(ids);
    for (const [id, box] of boxes) box.checked = checked.has(id);
  };
  return { fieldset, show };
}

/**
 * The row above the figures, appended to the plots: Train and Stop (`button` adds more, such
 * as presets), the live progress line and the line that says whose runs the figures show.
 * @param {string} prefix 'lg' or 'tl': the buttons' classes are `${prefix}-train`, `${prefix}-stop`
 */
export function labActions(shell, prefix) {
  const actions = el('div', 'lg-actions');
  const buttons = el('div', 'button-row lg-buttons');
  const button = (text, className, title) => {
    const b = el('button', className, text);
    b.type = 'button';
    if (title) b.title = title;
    buttons.append(b);
    return b;
  };
  const train = button('Train', `${prefix}-train button-primary`);
  const stop = button('Stop', `${prefix}-stop`);
  const progress = el('p', labClasses(prefix, 'progress'));
  progress.setAttribute('aria-live', 'polite');
  // Whose runs the figures show when they are not the settings' own (the example, a previous run).
  const source = el('p', labClasses(prefix, 'source'));
  actions.append(buttons, progress, source);
  shell.plots.append(actions);
  return { button, train, stop, progress, source };
}

/**
 * The results, appended to the plots: the table (in a box that scrolls on a phone), the box of
 * the papers' claims, and `exportButton(text, onClick)`, which adds a button to the export row.
 */
export function labResults(shell, prefix) {
  const table = el('table', labClasses(prefix, 'table'));
  const tableBox = scrollBox('lg-table-box', 'results table');
  tableBox.append(table);
  const papers = el('div', labClasses(prefix, 'papers'));
  const exports = el('div', 'button-row lg-exports');
  shell.plots.append(tableBox, papers, exports);
  const exportButton = (text, onClick) => {
    const b = el('button', '', text);
    b.type = 'button';
    b.addEventListener('click', onClick);
    exports.append(b);
    return b;
  };
  return { table, tableBox, papers, exportButton };
}

/**
 * What a lab does with its training job's messages. `progress(m, label)` folds one into the run
 * state (lab/runs.js) and redraws what it changed: the loss figure for new losses, every figure
 * for a finished run, the status line for a failed one (`label` names the run there).
 * `ended(result)` says how the job ended. drawLoss and render are the view's.
 */
export function trainingReports(shell, { runState, line, drawLoss, render }) {
  return {
    progress(m, label) {
      const phase = applyProgress(runState, m, label);
      if (phase === 'losses') drawLoss();
      else if (phase === 'finished') render();
      else if (phase === 'failed') shell.status.textContent = runState.failures.join(' ');
      line.textContent = trainingLine(m);
    },
    ended(result) {
      shell.status.textContent = runState.failures.join(' ');
      line.textContent = result.stopped
        ? `Stopped: ${result.finished} of ${result.total} runs finished and kept.`
        : `Done: ${result.total} runs in ${result.seconds.toFixed(0)} s.`;
    },
  };
}

/** Saves `value` as a JSON file, indented by one space (a run's results are long). */
export function downloadJson(name, value) {
  download(name, new Blob([JSON.stringify(value, null, 1)], { type: 'application/json' }));
}
