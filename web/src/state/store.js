// One store of named values (the URL state). Views read it and set it; subscribers hear
// which keys changed so a view recomputes only when its own controls move.
import { SCHEMA } from './registry.js';

export function createStore(initial) {
  let state = { ...initial };
  const listeners = new Set();

  return {
    get: () => state,

    /**
     * Applies a patch of already-checked values; returns the keys that changed.
     * @param {Record<string, any>} patch
     * @param {{ source?: string }} [meta] who changed it ('control', 'hash', 'preset', ...)
     */
    set(patch, meta = {}) {
      const changed = [];
      const next = { ...state };
      for (const [key, value] of Object.entries(patch)) {
        if (!Object.hasOwn(SCHEMA, key) || !SCHEMA[key].check(value).ok) {
          throw new Error(`store: refused ${key}`); // a programming error, never user input
        }
        const before = next[key];
        const equal = Array.isArray(value)
          ? Array.isArray(before) && value.join(',') === before.join(',')
          : value === before;
        if (!equal) {
          next[key] = value;
          changed.push(key);
        }
      }
      if (changed.length) {
        state = next;
        for (const fn of listeners) fn(state, changed, meta);
      }
      return changed;
    },

    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}
