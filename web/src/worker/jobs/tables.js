// The (L, D) table of a vector-valued encoding, computed by the wasm core. A rotation has no
// table of its own (it rotates q and k), so its "table" is the rotation of the unit vector e
// that has 1 in the first member of every rotated pair: row p is then (cos pθᵢ, sin pθᵢ) per
// pair, as queries take it (a decaying rotation's pairs also times ζᵢ^e).

import { fieldError } from '../../state/combinations.js';
import { hasOption, isRotation, rotationPairs } from '../../state/methods.js';

/** @typedef {{ data: Float32Array, shape: number[] }} Tensor */

/** Unit input for RoPE: (L, D), 1 at the first member of each pair for the given pairing. */
export function ropeUnitInput(L, D, style) {
  const row = new Float32Array(D);
  if (style === 'gptj') for (let i = 0; i < D; i += 2) row[i] = 1;
  else row.fill(1, 0, Math.floor(D / 2));
  const data = new Float32Array(L * D);
  for (let p = 0; p < L; p++) data.set(row, p * D);
  return { data, shape: [L, D] };
}

/**
 * @param {any} lab the PosLab API (createPosLab)
 * @param {{ method: string, L: number, D: number, base?: number, layout?: string, style?: string, seed?: number,
 *   scalebase?: number, keep?: number }} p
 * @returns {Tensor} (L, D); absent options are the core's defaults (a rotation's: its method's)
 */
export function encodingTable(lab, { method, L, D, base, layout, style, seed, scalebase, keep }) {
  if (isRotation(method)) {
    if (D % 2) throw fieldError('D', `${method} rotates pairs: D must be even, got ${D}`);
    const pairs = rotationPairs(method, style);
    // The scale base setting is a decay's: a method without one keeps none.
    const scaleBase = hasOption(method, 'scaleBase') ? scalebase : undefined;
    const keepFraction = hasOption(method, 'keepFraction') ? keep : undefined;
    return lab.rope(ropeUnitInput(L, D, pairs), { method, style: pairs, base, scaleBase, keepFraction });
  }
  switch (method) {
    case 'sinusoidal':
      return lab.sinusoidal({ length: L, dim: D, base, layout });
    case 'learned':
      return lab.learned({ length: L, dim: D, seed });
    case 'none':
      // No positional signal: the table NoPE adds is zero everywhere.
      return { data: new Float32Array(L * D), shape: [L, D] };
    default:
      throw new RangeError(`${method} is not a table of vectors`);
  }
}
