// The page's position-method lists, each cut from the core's one table (position-methods.js,
// generated from cpp/include/poslab/positions/position_methods.hpp) by what a view needs, so a method
// added to the table appears wherever it applies. No registry import: the worker reads this.
import { POSITION_METHODS } from './position-methods.js';

const names = (keep) => POSITION_METHODS.filter(keep).map((m) => m.name);
const kind =
  (...kinds) =>
  (m) =>
    kinds.includes(m.kind);

// What the core draws without a trained model: its own tables and multi-head's biases, not a
// method only the trainer has (a trained function of position; the lab's view draws it).
const drawn = (m) => m.support.core || m.support.bias;

/** Every method the core draws, in the table's order (the Encodings view). */
export const METHODS = names(drawn);
/** Methods that give each position its own vector (Similarity, Vectors of chosen positions). */
export const VECTOR_METHODS = names((m) => drawn(m) && kind('added table', 'learned table', 'rotation', 'none')(m));
/** Methods whose figure is an L × L matrix of query–key pairs: one rule for views, jobs and caps. */
export const PAIR_METHODS = names((m) => drawn(m) && kind('relative table', 'score bias')(m));
export const isPairMethod = (method) => PAIR_METHODS.includes(method);
/** Methods whose table pairs dimensions (sin/cos, or the rotated pairs): D must be even. */
export const needsEvenWidth = (method) => names(kind('added table', 'rotation')).includes(method);
/** Methods that rotate q and k inside attention: the Attention view's rotations. */
export const ROTATIONS = names((m) => drawn(m) && kind('rotation')(m));
/** Methods added to the embeddings, as the Attention view's input encodings. */
export const EMBEDDING_METHODS = names((m) => drawn(m) && kind('added table', 'learned table', 'none')(m));
/** multiHeadAttention's position bias. */
export const BIASES = names((m) => m.support.bias);
/** Methods swapped into GPT-2 in place of its learned positions. */
export const GPT2_POSITIONS = names((m) => m.support.gpt2);
/** Methods the trainer has (the Length generalisation view). */
export const TRAINER_METHODS = names((m) => m.support.trainer);
/**
 * The trainer's methods for the text task: not one that numbers digits (Abacus: `ownPositions`,
 * its positions computed from the tokens).
 */
export const TEXT_METHODS = names((m) => m.support.trainer && !m.support.ownPositions);
/** The trainer's methods that take position coupling on addition (Cho et al. 2024). */
export const COUPLED_METHODS = names((m) => m.support.coupled);
/**
 * The Length generalisation view's methods: the trainer's, then each that reads positions again
 * on randomised positions (`<method>-random`; Ruoss et al. 2023). NoPE, CoPE and FoX have no
 * positions to sample, Abacus computes its own: the core refuses randomisedPositions with them.
 */
export const LAB_METHODS = [
  ...TRAINER_METHODS,
  ...TRAINER_METHODS.filter((m) => takesRandomized(m)).map((m) => `${m}-random`),
];
function rowOf(method) {
  return POSITION_METHODS.find((m) => m.name === method);
}
/**
 * Whether `method` reads the positions it is given: not NoPE, nor a gated method (CoPE, FoX),
 * whose positions come from content (the core's reads_positions).
 */
export function readsPositions(method) {
  return !['none', 'gated'].includes(rowOf(method)?.kind);
}
/**
 * Whether the trainer takes randomised positions for `method`: it reads the positions it is
 * given, and does not compute its own from the tokens (Abacus's digit places: `ownPositions`).
 */
export function takesRandomized(method) {
  return readsPositions(method) && !rowOf(method)?.support.ownPositions;
}
const optionOf = (method, option) => rowOf(method)?.options.find((o) => o.name === option);
/** Whether `method` rotates q and k (a rotation of the core's table: RoPE and its relatives). */
export const isRotation = (method) => rowOf(method)?.kind === 'rotation';
/**
 * The pairs a rotation `method` turns: RoPE's are a setting (`style`, its pairing control); any
 * other rotation's are those of its row of the core's table ('neox' or 'gptj').
 */
export const rotationPairs = (method, style) => (method === 'rope' ? style : rowOf(method).pairs);
/** The score biases the Encodings view draws one head at a time (the others draw one matrix). */
export const HEAD_BIASES = ['alibi', 'kerple'];
export const isHeadBias = (method) => HEAD_BIASES.includes(method);
/** The methods whose drawing reads the seed setting: a seeded table, or a bias's starting values. */
export const isSeeded = (method) => ['learned', 'kerple'].includes(method);
/** Whether the core's table gives `method` the option `option` (a base: sinusoidal and the rotations). */
export const hasOption = (method, option) => optionOf(method, option) !== undefined;
/** Option `option`'s default in the first row of the core's table that has it (a setting methods share). */
export function optionDefault(option) {
  const found = POSITION_METHODS.map((m) => optionOf(m.name, option)).find(Boolean);
  if (!found) throw new Error(`no method of the core's table has the option '${option}'`);
  return found.default;
}
/** Other names links may use for a method ('nope' for 'none'): read as the method's own name. */
export const METHOD_ALIASES = Object.fromEntries(
  POSITION_METHODS.flatMap((m) => m.aliases.map((alias) => [alias, m.name])),
);
