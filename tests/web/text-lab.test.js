// The text experiment's plan (one run per method, the text beside the config, cached by which
// text) and the sentences the view prints about the papers' claims, made from the numbers.
import { describe, expect, it } from 'vitest';
import { findings } from '../../web/src/lab/text-claims.js';
import { textCommand, textId, textPlan } from '../../web/src/lab/text-plan.js';

const bytes = (s) => new TextEncoder().encode(s);

describe('text plan', () => {
  it('keys a text by its bytes, the sample by name', () => {
    expect(textId(bytes('abc'), true)).toBe('sample');
    expect(textId(bytes('abc'), false)).toMatch(/^file:3:[0-9a-f]{8}$/);
    expect(textId(bytes('abc'), false)).not.toBe(textId(bytes('abd'), false));
  });

  it('gives each method a text run, cached without the bytes', () => {
    const text = { bytes: bytes('hello'), id: 'file:5:0' };
    const plan = textPlan({ methods: ['rope', 'alibi'], N: 64, M: 1024, steps: 2000, seed: 1 }, text);
    expect(plan.map((r) => r.id)).toEqual(['rope', 'alibi']);
    expect(plan[0].config).toEqual({
      task: 'text',
      position: 'rope',
      trainLen: 64,
      testLen: 1024,
      steps: 2000,
      seed: 1,
    });
    expect(plan[0].text).toBe(text.bytes);
    expect(plan[0].cacheKey).toEqual({ ...plan[0].config, text: 'file:5:0' });
    expect(textCommand(plan[0].config)).toBe(
      'poslab train --task text --text-file text.txt --position rope --train-len 64 --test-len 1024 --steps 2000 --seed 1 -o result.json',
    );
  });

  // Issue 50's options: sinks on every method, NoPE layers and their temperature on RoPE only.
  it('gives each run the attention options it takes', () => {
    const text = { bytes: bytes('hello'), id: 'sample' };
    const s = { methods: ['rope', 'cope'], N: 64, M: 1024, steps: 10, seed: 0 };
    const plan = textPlan({ ...s, sinks: true, nopeEvery: 2, attnFloor: 64, attnScale: 0.1 }, text);
    expect(plan[0].config).toMatchObject({ sinks: true, nopeEvery: 2, attnFloorScale: 64, attnScale: 0.1 });
    expect(plan[1].config).toMatchObject({ position: 'cope', sinks: true });
    expect(plan[1].config.nopeEvery).toBeUndefined();
    expect(textCommand(plan[0].config)).toMatch(/ --sinks --nope-every 2 --attn-temperature 64,0\.1 -o result\.json$/);
    expect(textPlan({ ...s, sinks: false, nopeEvery: 0, attnFloor: 0, attnScale: 0.1 }, text)).toEqual(
      textPlan(s, text),
    );
  });
});

// Press et al.'s shape: ALiBi flat, the others rising; RoPE's scalings as YaRN orders them.
const measured = (overrides = {}) => ({
  contexts: [64, 256, 1024],
  N: 64,
  losses: new Map([
    ['alibi', [1.66, 1.65, 1.65]],
    ['sinusoidal', [1.64, 3.95, 4.52]],
    ['rope', [1.6, 3.03, 4.57]],
    ['learned', [1.7, null, null]],
    ...(overrides.losses ?? []),
  ]),
  scaling: overrides.scaling ?? {
    linear: [1.6, 4.5, 5.3],
    ntk: [1.6, 1.9, 3.85],
    dynamic: [1.6, 2.0, 3.44],
    yarn: [1.6, 2.1, 3.94],
  },
  names: (id) => id,
});

describe('claims', () => {
  it('agree when the curves have the papers’ shape, naming the numbers', () => {
    const [flat, best, scalings] = findings(measured());
    expect(flat.verdict).toBe('agrees');
    expect(flat.said).toBe(
      'From context 64 to 1024: alibi 1.66 → 1.65; sinusoidal 1.64 → 4.52; rope 1.60 → 4.57 (flat: within 5% of the loss at 64).',
    );
    expect(best.verdict).toBe('agrees');
    expect(best.said).toBe('At context 1024: alibi 1.65 < sinusoidal 4.52 < rope 4.57.'); // learned: n/a
    expect(scalings.verdict).toBe('agrees');
    expect(scalings.said).toBe(
      'RoPE at context 1024, by scaling (factor 16): dynamic 3.44 < ntk 3.85 < yarn 3.94 < none (as trained) 4.57 < linear 5.30.',
    );
  });

  it('disagree when they do not', () => {
    const rising = measured({ losses: [['alibi', [1.6, 2.0, 2.4]]] });
    expect(findings(rising)[0].verdict).toBe('disagrees');
    expect(findings(rising)[1].verdict).toBe('agrees'); // still the lowest at 1024
    const worse = measured({
      scaling: { linear: [1.6, 4, 4], ntk: [1.6, 4, 4.7], dynamic: [1.6, 3, 3], yarn: [1.6, 3, 3] },
    });
    expect(findings(worse)[2].verdict).toBe('disagrees');
  });

  it('say what is missing rather than judge', () => {
    const noAlibi = measured();
    noAlibi.losses.delete('alibi');
    expect(findings(noAlibi)[0].verdict).toBe('untested');
    expect(findings(noAlibi)[1].verdict).toBe('untested');
    expect(findings({ ...measured(), scaling: null })[2].verdict).toBe('untested');
    expect(findings({ ...measured(), contexts: [64], N: 64 })[0].verdict).toBe('untested');
  });
});
