// How the lab draws a method's line: its colour from the method's entry (content/methods.js),
// dashed for a variant of it (RoPE on randomised positions, `rope-random`).
import { METHOD_INFO } from '../content/methods.js';
import { OKABE_ITO } from '../plots/palette.js';

/**
 * @param {string} id a method id of lab/presets.js METHODS
 * @returns {{ color: string, dashed: boolean }}
 */
export function methodStyle(id) {
  const base = id.replace(/-random$/, '');
  return { color: METHOD_INFO[base]?.colour ?? OKABE_ITO[7], dashed: base !== id };
}
