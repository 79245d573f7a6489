// A permalink whose settings are each in range but refused together falls back: the largest
// axis clamped to the cell cap where that is enough, otherwise the view's defaults, and the
// problems say which.
import { describe, expect, it } from 'vitest';
import { defaults } from '../../web/src/state/registry.js';
import { MAX_CELLS, MAX_PAIR_LENGTH, refusal } from '../../web/src/state/combinations.js';
import { readLink } from '../../web/src/state/url.js';

const viewKeys = (state, prefix) =>
  Object.fromEntries(Object.entries(state).filter(([k]) => k.startsWith(`${prefix}.`)));

describe('link fall-back', () => {
  it('LinkFallback.LargestAxisClampedToTheCellCap', () => {
    const { state, problems } = readLink('#view=encodings&enc.L=8192&enc.D=4096');
    expect(state['enc.D']).toBe(4096);
    expect(state['enc.L']).toBe(MAX_CELLS / 4096);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/enc\.L.*clamped to 2048/);
  });

  it('LinkFallback.WidthClampedWhenItIsTheLargerAxisAndStaysEven', () => {
    const { state, problems } = readLink('#enc.L=2100&enc.D=4096');
    expect(state['enc.L']).toBe(2100);
    expect(state['enc.D'] % 2).toBe(0);
    expect(state['enc.D'] * 2100).toBeLessThanOrEqual(MAX_CELLS);
    expect((state['enc.D'] + 2) * 2100).toBeGreaterThan(MAX_CELLS);
    expect(problems[0]).toMatch(/enc\.D.*clamped/);
  });

  it('LinkFallback.PairMatrixLengthClamped', () => {
    const { state, problems } = readLink('#enc.method=alibi&enc.L=8000');
    expect(state['enc.L']).toBe(MAX_PAIR_LENGTH);
    expect(problems[0]).toMatch(/clamped/);
  });

  it('LinkFallback.XposScaleBaseRaisedToKeepItsTableInFloat32', () => {
    // L = 8192: position 0 is 3.5^(4096/s), past float32 below s ≈ 57.9; the rule asks ≥ 59.
    const { state, problems } = readLink('#enc.method=xpos&enc.L=8192&enc.D=2&enc.scalebase=10');
    expect(state['enc.scalebase']).toBe(Math.ceil((4096 * Math.log(3.5)) / 88));
    expect((4096 * Math.log(3.5)) / state['enc.scalebase']).toBeLessThan(Math.log(3.4028234663852886e38));
    expect(problems[0]).toMatch(/enc\.scalebase.*clamped/);
    expect(refusal('enc', { method: 'xpos', L: 8192, D: 2, scalebase: 58 })).toEqual({
      key: 'enc.scalebase',
      message: expect.stringMatching(/^xpos scales position 0 .* at least 59$/),
    });
    expect(refusal('enc', { method: 'xpos', L: 50, D: 8, scalebase: 1 })).toBeNull();
    // The rule is a decay's (a method with a scaleBase option): RoPE's table has none to overflow.
    expect(refusal('enc', { method: 'rope', L: 8192, D: 2, scalebase: 10 })).toBeNull();
  });

  it('LinkFallback.OldRopeCheckboxLinksOpenAsTheRopeRotation', () => {
    expect(readLink('#view=attention&att.rope=1').state['att.rope']).toBe('rope');
    expect(readLink('#view=attention&att.rope=0').state['att.rope']).toBe('none');
    expect(readLink('#view=attention&att.rope=xpos').state['att.rope']).toBe('xpos');
  });

  it('LinkFallback.MalformedCustomMaskUsesTheViewDefaults', () => {
    // Passes the pattern (CUSTOM_MASK_RE) but holds too few bits for 8 × 8 cells.
    const { state, problems } = readLink('#view=attention&att.mask=custom&att.custom=8.AA&att.H=2');
    expect(viewKeys(state, 'att')).toEqual(viewKeys(defaults(), 'att'));
    expect(state.view).toBe('attention');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/att\.custom.*defaults/);
  });

  it('LinkFallback.OtherViewsAndValidLinksUntouched', () => {
    const { state, problems } = readLink('#enc.L=8192&enc.D=1024&att.H=2&sim.L=4096&sim.D=4096');
    expect(problems).toEqual([]);
    expect(state['enc.L']).toBe(8192);
    expect(state['att.H']).toBe(2);
    expect(state['sim.L']).toBe(4096);
    expect(readLink('').problems).toEqual([]);
  });

  it('LinkFallback.ImpossibleCombinationUsesTheViewDefaults', () => {
    const { state, problems } = readLink('#att.D=64&att.H=3&enc.L=60');
    expect(viewKeys(state, 'att')).toEqual(viewKeys(defaults(), 'att'));
    expect(state['enc.L']).toBe(60);
    expect(problems[0]).toMatch(/att\.H/);
  });

  it('LinkFallback.TheViewsAskTheSameRule', () => {
    // The cap the link clamps to is the one the view refuses beyond.
    expect(refusal('enc', { method: 'sinusoidal', L: 8192, D: 1026 })?.key).toBe('enc.L');
    expect(refusal('enc', { method: 'sinusoidal', L: 8192, D: 1024 })).toBeNull();
  });
});
