// The custom attention mask's URL encoding.
import { describe, expect, it } from 'vitest';
import { CUSTOM_MASK_RE, SCHEMA } from '../../web/src/state/registry.js';
import { MAX_MASK_TOKENS, decodeMask, encodeMask } from '../../web/src/state/mask-bits.js';

const random = (n, seed) => {
  let s = seed;
  return Uint8Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) >>> 0) >> 16) & 1);
};

describe('custom mask bits', () => {
  it('MaskBits.RoundTripsEverySize', () => {
    for (let L = 1; L <= MAX_MASK_TOKENS; L++) {
      const hidden = random(L * L, L);
      hidden[0] = 1; // never empty
      const token = encodeMask(hidden, L);
      expect(CUSTOM_MASK_RE.test(token), `L=${L}`).toBe(true);
      expect(SCHEMA['att.custom'].check(token).ok, `L=${L}`).toBe(true);
      expect(decodeMask(token, L), `L=${L}`).toEqual(hidden);
    }
  });

  it('MaskBits.EmptyMaskIsTheEmptyString', () => {
    expect(encodeMask(new Uint8Array(9), 3)).toBe('');
    expect(decodeMask('', 3)).toEqual(new Uint8Array(9));
  });

  it('MaskBits.OtherLengthKeepsTheTopLeftOverlap', () => {
    const hidden = Uint8Array.from([0, 1, 0, 0, 0, 1, 1, 0, 0]); // 3 × 3
    const token = encodeMask(hidden, 3);
    expect(decodeMask(token, 2)).toEqual(Uint8Array.from([0, 1, 0, 0]));
    expect(decodeMask(token, 4)).toEqual(Uint8Array.from([0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0]));
  });

  it.each(['x', '3.', '0.AA', '65.AA', '3.A', '3.!!!', '3.AA=', '999.AAAA'])(
    'MaskBits.MalformedIsNull (%s)',
    (token) => {
      expect(decodeMask(token, 3)).toBeNull();
    },
  );
});
