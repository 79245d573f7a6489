// The page's copy of the core's position-method table (state/position-methods.js, written by
// `npm run generate`) against the built core's own (lab.names.positionMethods), and
// the lists cut from it against the core's per-context lists: a method added to the table in
// C++ fails here until the page's copy is regenerated.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLab } from './helpers/lab.js';
import { POSITION_METHODS } from '../../web/src/state/position-methods.js';
import {
  BIASES,
  GPT2_POSITIONS,
  METHOD_ALIASES,
  METHODS,
  PAIR_METHODS,
  ROTATIONS,
  TRAINER_METHODS,
  VECTOR_METHODS,
  hasOption,
  isPairMethod,
  isRotation,
  needsEvenWidth,
  optionDefault,
  rotationPairs,
} from '../../web/src/state/methods.js';
import { EVERY_METHOD, METHODS as LAB_METHODS } from '../../web/src/lab/presets.js';
import { METHOD_INFO } from '../../web/src/content/methods.js';

let lab;
beforeAll(async () => {
  lab = await loadLab();
});

describe('position methods', () => {
  it('PositionMethods.PageCopyIsTheCoresTable', () => {
    expect(POSITION_METHODS).toEqual(JSON.parse(JSON.stringify(lab.names.positionMethods)));
  });

  it('PositionMethods.EachContextsListIsTheCores', () => {
    const drawn = lab.names.positionMethods.filter((m) => m.support.core || m.support.bias);
    expect(METHODS).toEqual(drawn.map((m) => m.name));
    // A trainer-only method (FIRE) is in the lab's list and out of the core's views.
    expect(TRAINER_METHODS).toContain('fire');
    expect(METHODS).not.toContain('fire');
    expect(BIASES).toEqual(lab.names.positionBiases);
    expect(GPT2_POSITIONS).toEqual(lab.names.gpt2Positions);
    expect(EVERY_METHOD).toEqual(TRAINER_METHODS);
    expect(LAB_METHODS.map((m) => m.id)).toEqual([
      ...TRAINER_METHODS,
      // Randomised: each that reads positions it is given (NoPE has none; CoPE and FoX count by
      // content; Abacus numbers digits itself).
      ...TRAINER_METHODS.filter((m) => !['none', 'cope', 'fox', 'abacus'].includes(m)).map((m) => `${m}-random`),
    ]);
    expect(METHOD_ALIASES.nope).toBe('none');
  });

  it('PositionMethods.KindsDecideTheViewsRules', () => {
    expect(PAIR_METHODS).toEqual(['shaw', 'alibi', 't5', 'kerple']);
    expect(VECTOR_METHODS).toEqual(['learned', 'sinusoidal', 'rope', 'p-rope', 'xpos', 'none']);
    expect(['alibi', 't5', 'shaw', 'kerple'].every(isPairMethod)).toBe(true);
    expect(isPairMethod('rope')).toBe(false);
    expect(METHODS.filter(needsEvenWidth)).toEqual(['sinusoidal', 'rope', 'p-rope', 'xpos']);
    expect(ROTATIONS).toEqual(['rope', 'p-rope', 'xpos']);
    expect(METHODS.filter(isRotation)).toEqual(ROTATIONS);
    // RoPE's pairs are its pairing setting; xPos's are its row's (torchscale's gptj).
    expect(['neox', 'gptj'].map((style) => rotationPairs('rope', style))).toEqual(['neox', 'gptj']);
    expect(rotationPairs('xpos', 'neox')).toBe('gptj');
  });

  it('PositionMethods.OptionsAreReadFromTheTable', () => {
    expect(METHODS.filter((m) => hasOption(m, 'base'))).toEqual(['sinusoidal', 'rope', 'p-rope', 'xpos']);
    expect(METHODS.filter((m) => hasOption(m, 'scaleBase'))).toEqual(['xpos']);
    expect(METHODS.filter((m) => hasOption(m, 'keepFraction'))).toEqual(['p-rope']);
    expect(optionDefault('keepFraction')).toBe(0.75); // p-RoPE's p (Barbero et al. 2025)
    expect(optionDefault('scaleBase')).toBe(512); // torchscale's XPOS
    expect(optionDefault('base')).toBe(10000);
    expect(() => optionDefault('scalebase')).toThrow(/no method of the core's table has the option 'scalebase'/);
  });

  it('PositionMethods.EveryMethodHasItsExplanation', () => {
    for (const name of METHODS) expect(METHOD_INFO[name], name).toBeDefined();
    // The lab's legends: every trainer method has its own label and colour (content/methods.js).
    for (const name of TRAINER_METHODS) expect(METHOD_INFO[name], name).toMatchObject({ label: expect.any(String) });
    const colours = TRAINER_METHODS.map((name) => METHOD_INFO[name].colour);
    expect(new Set(colours).size).toBe(colours.length);
    expect(LAB_METHODS.find((m) => m.id === 'xpos').label).toBe('xPos');
  });
});
