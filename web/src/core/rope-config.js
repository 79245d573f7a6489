// The RoPE inspector's API (poslab-lm module, cpp/wasm/lm_module_bindings.cpp): any
// config.json read into its position scheme, no weights, and the model-type table it and the
// runtime read configs by. The report and the table are the core's JSON with camelCase keys.
// Declarations and docs: rope-config.d.ts.
import { call } from './lm-common.js';
import * as check from './validate.js';

const camel = (key) => key.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

// Keys renamed at every depth; the values (numbers, strings, lists) kept.
function camelKeys(value) {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [camel(k), camelKeys(v)]));
}

/** The inspector bound to an instantiated poslab-lm module (merged into its lab). */
export function bindRopeConfig(m) {
  return {
    /**
     * config.json's text → its RoPE report (schemes, layers, mla, temperature, mrope, notes,
     * ignoredKeys). options.mropeSample: the M-RoPE prompt { textBefore, imageH, imageW,
     * textAfter } (checked in C++).
     */
    ropeConfig(text, name, options) {
      const o = check.options(options, 'ropeConfig', ['mropeSample']);
      const json = call(
        m.ropeConfig,
        check.string(text, 'config'),
        name === undefined ? 'config.json' : check.string(name, 'name'),
        o.mropeSample,
      );
      return camelKeys(JSON.parse(json));
    },
    // Not in the threaded build (cpp/wasm/lm_module_bindings.cpp: its size budget); the page
    // reads the generated copy, web/src/state/model-types.js.
    ...(m.modelTypes && {
      /** The model-type table: one row per config.json model_type (model_types.hpp). */
      modelTypes: () => camelKeys(JSON.parse(m.modelTypes())),
    }),
  };
}
