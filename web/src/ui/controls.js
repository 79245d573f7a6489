// Labelled form controls generated from the URL schema. A value that fails its type's check
// is shown as an error beside the control and never reaches the store, so the plots keep
// the last good state. Everything user-visible is set through textContent or .value.
import { SCHEMA } from '../state/registry.js';

/**
 * @typedef {{ key: string, label: string, kind: 'slider'|'number'|'select'|'checkbox'|'text'|'list',
 *   options?: [string, string][], step?: number, show?: (state: any) => boolean, help?: string,
 *   min?: number, max?: number }} ControlSpec
 */

/** The id of a setting's input (the embed hides a control's row by it). */
export const idOf = (key) => `c-${key.replace(/[^a-z0-9]/gi, '-')}`;

/**
 * @param {HTMLElement} container
 * @param {ControlSpec[]} specs
 * @param {ReturnType<import('../state/store.js').createStore>} store
 * @param {{ onInput?: (key: string) => void }} [hooks] called before a valid value is stored
 */
export function renderControls(container, specs, store, hooks = {}) {
  const rows = new Map();
  let lastKey = null;

  const commit = (spec, value) => {
    const checked = SCHEMA[spec.key].check(value);
    const row = rows.get(spec.key);
    if (!checked.ok) return row.setError(`${spec.label}: ${checked.reason}`);
    row.setError('');
    lastKey = spec.key;
    hooks.onInput?.(spec.key);
    store.set({ [spec.key]: checked.value }, { source: 'control' });
  };

  for (const spec of specs) {
    const type = SCHEMA[spec.key];
    const id = idOf(spec.key);
    const row = document.createElement('div');
    row.className = `control control-${spec.kind}`;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = spec.label;
    const inputs = document.createElement('div');
    inputs.className = 'inputs';
    const error = document.createElement('span');
    error.className = 'control-error';
    error.id = `${id}-error`;
    error.setAttribute('role', 'status');
    row.append(label, inputs, error);
    if (spec.help) row.title = spec.help;

    let set; // state value → widgets
    const min = spec.min ?? type.min;
    const max = spec.max ?? type.max;
    if (spec.kind === 'slider' || spec.kind === 'number') {
      const number = document.createElement('input');
      number.type = 'number';
      Object.assign(number, { min, max, step: spec.step ?? (type.kind === 'int' ? 1 : 'any') });
      number.id = id;
      number.setAttribute('aria-describedby', error.id);
      let range = null;
      if (spec.kind === 'slider') {
        range = document.createElement('input');
        range.type = 'range';
        Object.assign(range, { min, max, step: spec.step ?? 1 });
        range.setAttribute('aria-label', `${spec.label} (slider)`);
        range.setAttribute('aria-describedby', error.id);
        range.addEventListener('input', () => {
          number.value = range.value;
          commit(spec, Number(range.value));
        });
        inputs.append(range);
      }
      // Commit on change (blur / Enter / spinner), not every keystroke: "1" on the way to
      // "128" should not trigger a compute.
      number.addEventListener('change', () => commit(spec, number.value.trim() === '' ? NaN : Number(number.value)));
      inputs.append(number);
      set = (v) => {
        number.value = String(v);
        if (range) range.value = String(v);
      };
    } else if (spec.kind === 'select') {
      const select = document.createElement('select');
      select.id = id;
      select.setAttribute('aria-describedby', error.id);
      for (const [value, text] of spec.options ?? type.values.map((v) => [v, v])) {
        const o = document.createElement('option');
        o.value = value;
        o.textContent = text;
        select.append(o);
      }
      select.addEventListener('change', () => commit(spec, select.value));
      inputs.append(select);
      set = (v) => (select.value = v);
    } else if (spec.kind === 'checkbox') {
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.id = id;
      box.setAttribute('aria-describedby', error.id);
      box.addEventListener('change', () => commit(spec, box.checked));
      inputs.append(box);
      set = (v) => (box.checked = v);
    } else {
      // text and list: free typing, committed after a pause or on change.
      const input = document.createElement('input');
      input.type = 'text';
      input.id = id;
      input.spellcheck = false;
      input.setAttribute('aria-describedby', error.id);
      if (spec.kind === 'text') input.maxLength = type.maxLength;
      const read = () => (spec.kind === 'list' ? type.parse(input.value) : type.check(input.value));
      let timer = 0;
      const go = () => {
        clearTimeout(timer);
        const parsed = read();
        if (!parsed.ok) rowApi.setError(`${spec.label}: ${parsed.reason}`);
        else commit(spec, parsed.value);
      };
      input.addEventListener('input', () => {
        clearTimeout(timer);
        timer = setTimeout(go, 300);
      });
      input.addEventListener('change', go);
      inputs.append(input);
      set = (v) => {
        if (document.activeElement !== input) input.value = spec.kind === 'list' ? v.join(', ') : v;
      };
    }

    const rowApi = {
      el: row,
      spec,
      set,
      setError(text) {
        error.textContent = text;
        row.classList.toggle('has-error', Boolean(text));
        return row;
      },
    };
    rows.set(spec.key, rowApi);
    container.append(row);
  }

  return {
    /** Shows the state's values and hides controls that do not apply. */
    sync(state) {
      for (const row of rows.values()) {
        row.set(state[row.spec.key]);
        row.el.hidden = row.spec.show ? !row.spec.show(state) : false;
      }
    },
    /** Shows `text` under the control of `key`; returns the control's row (null: no such control). */
    setError(key, text) {
      return rows.get(key)?.setError(text) ?? null;
    },
    clearErrors() {
      for (const row of rows.values()) row.setError('');
    },
    /** The key the person changed last (where a compute error most likely comes from). */
    get lastKey() {
      return lastKey;
    },
    has: (key) => rows.has(key),
  };
}
