// One colour per method across the lab's plots, from the shared colour-blind-safe palette
// (plots/palette.js), fixed by method rather than by position in the list: a method keeps its
// colour when others are added or dropped, and the families most often compared side by side
// (learned, RoPE, ALiBi, NoPE) get the four most distinct hues. A variant of a method (RoPE on
// randomised positions) takes its method's colour, dashed.
import { OKABE_ITO } from '../plots/palette.js';

const [BLUE, ORANGE, GREEN, VERMILLION, SKY, PURPLE, YELLOW, GREY] = OKABE_ITO;

const COLOURS = {
  learned: BLUE,
  sinusoidal: SKY,
  rope: VERMILLION,
  xpos: YELLOW,
  alibi: GREEN,
  t5: PURPLE,
  fire: ORANGE,
  none: GREY,
};

/**
 * How the lab draws a method's line: its colour, dashed for a variant (`rope-random`).
 * @param {string} id a method id of lab/presets.js METHODS
 * @returns {{ color: string, dashed: boolean }}
 */
export function methodStyle(id) {
  const base = id.replace(/-random$/, '');
  return { color: COLOURS[base] ?? GREY, dashed: base !== id };
}
