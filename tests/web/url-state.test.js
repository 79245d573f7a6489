// The URL hash is the state: round-trips, garbage and hostile links.
import { describe, expect, it } from 'vitest';
import { SEED_CARDS } from '../../web/src/content/gallery.js';
import { SCHEMA, defaults } from '../../web/src/state/registry.js';
import { START_ROUTES } from '../../web/src/content/start.js';
import { MAX_HASH, linkHash, parseHash, presetHash, serialiseHash } from '../../web/src/state/url.js';

// A valid non-default value for every key, so a round trip exercises each type.
function otherValue(key) {
  const t = SCHEMA[key];
  switch (t.kind) {
    case 'int':
      return t.def === t.max ? t.def - 1 : t.def + 1;
    case 'num':
      return t.def === t.max ? t.def / 2 : Math.min(t.max, t.def * 1.5 + 0.25);
    case 'enum':
      return t.values.find((v) => v !== t.def);
    case 'bool':
      return !t.def;
    case 'text':
      return 'a & b = c # d + e % f 😀 <b>x</b>';
    case 'list':
      return [t.min, t.min + 3, t.min + 7];
    case 'token': // a custom mask, a head ('1.1'), Surgery's pairs or bases: the one the type takes
      return ['3.gAA', '1.1', '0:2'].find((v) => t.check(v).ok);
    case 'names':
      return t.values
        .filter((v) => !t.def.includes(v))
        .slice(0, 1)
        .concat(t.def.slice(0, 1));
    default:
      throw new Error(`no test value for ${key}`);
  }
}

describe('URL state', () => {
  it('UrlState.DefaultsSerialiseToAnEmptyHash', () => {
    expect(serialiseHash(defaults())).toBe('');
    expect(parseHash('')).toEqual({ state: defaults(), problems: [] });
    expect(parseHash('#')).toEqual({ state: defaults(), problems: [] });
  });

  it('UrlState.EveryKeyRoundTrips', () => {
    for (const key of Object.keys(SCHEMA)) {
      const state = { ...defaults(), [key]: otherValue(key) };
      expect(SCHEMA[key].check(state[key]).ok, key).toBe(true);
      const hash = serialiseHash(state);
      expect(hash, key).not.toBe('');
      const back = parseHash(`#${hash}`);
      expect(back.problems, key).toEqual([]);
      expect(back.state, key).toEqual(state);
    }
  });

  it('UrlState.AllKeysChangedAtOnceRoundTrip', () => {
    const state = Object.fromEntries(Object.keys(SCHEMA).map((k) => [k, otherValue(k)]));
    expect(parseHash(serialiseHash(state)).state).toEqual(state);
  });

  it('UrlState.GalleryPresetsAreValidPermalinks', () => {
    for (const card of SEED_CARDS) {
      for (const preset of card.presets) {
        const { state, problems } = parseHash(presetHash(preset.state));
        expect(problems, preset.label).toEqual([]);
        for (const [k, v] of Object.entries(preset.state)) expect(state[k], `${preset.label} ${k}`).toEqual(v);
      }
    }
  });

  it('UrlState.GarbageValuesFallBackPerKeyWithAMessage', () => {
    const { state, problems } = parseHash(
      '#enc.L=abc&enc.D=64&enc.base=1e400&view=nowhere&enc.bidir=maybe&enc.pos=1,x,3',
    );
    expect(state['enc.D']).toBe(64); // the valid part is kept
    expect(state['enc.L']).toBe(SCHEMA['enc.L'].def);
    expect(state['enc.base']).toBe(SCHEMA['enc.base'].def);
    expect(state.view).toBe('encodings');
    expect(state['enc.bidir']).toBe(true);
    expect(state['enc.pos']).toEqual(SCHEMA['enc.pos'].def);
    expect(problems).toHaveLength(5);
  });

  it.each([
    ['hex', '0x10'],
    ['blank', ''],
    ['spaces', ' 5 '],
    ['fraction for an int', '3.5'],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['too large', '9999999'],
    ['negative', '-1'],
    ['exponent overflow', '1e999'],
  ])('UrlState.RejectsBadIntegers (%s)', (_name, raw) => {
    const { state, problems } = parseHash(`#enc.L=${encodeURIComponent(raw)}`);
    expect(state['enc.L']).toBe(50);
    expect(problems).toHaveLength(1);
  });

  it('UrlState.UnknownAndPrototypeKeysAreIgnored', () => {
    const { state, problems } = parseHash('#__proto__=1&constructor=x&toString=y&enc.L=60&polluted=1');
    expect(state['enc.L']).toBe(60);
    expect(problems).toHaveLength(4);
    expect({}.polluted).toBeUndefined();
    expect(Object.getPrototypeOf(state)).toBe(Object.prototype);
    expect(Object.hasOwn(state, 'constructor')).toBe(false);
  });

  it('UrlState.DuplicateKeysUseTheFirst', () => {
    const { state, problems } = parseHash('#enc.L=60&enc.L=70');
    expect(state['enc.L']).toBe(60);
    expect(problems).toHaveLength(1);
  });

  it('UrlState.RenamedViewsOldLinksStillOpen', () => {
    // The Models view was 'gpt2' with prefix 'gpt': such links read as 'lm', written back new.
    const { state, problems } = parseHash('#view=gpt2&gpt.text=a%20cat&gpt.layer=2&gpt.position=rope');
    expect(problems).toEqual([]);
    expect(state.view).toBe('lm');
    expect([state['lm.text'], state['lm.layer'], state['lm.position']]).toEqual(['a cat', 2, 'rope']);
    expect(serialiseHash(state)).toBe('view=lm&lm.text=a+cat&lm.position=rope&lm.layer=2');
    // The old and new spelling of one setting: the first is used, as for any repeated key.
    const both = parseHash('#gpt.layer=3&lm.layer=4');
    expect(both.state['lm.layer']).toBe(3);
    expect(both.problems).toEqual(['“lm.layer” given twice; the first one is used']);
    // An unknown setting under the old prefix is named as the link spells it.
    expect(parseHash('#gpt.nope=1').problems).toEqual(['unknown setting “gpt.nope” ignored']);
  });

  it('UrlState.OverlongHashIsRefusedWhole', () => {
    const { state, problems } = parseHash(`#enc.L=60&x=${'a'.repeat(MAX_HASH)}`);
    expect(state).toEqual(defaults());
    expect(problems).toHaveLength(1);
  });

  it('UrlState.MalformedEncodingNeverThrows', () => {
    for (const hash of [
      '#%',
      '#%E0%A4%A',
      '#&&&==&',
      '#=1',
      '#enc.L',
      '#enc.L=%00',
      '#\u0000\u0001',
      '#view=%F0%9F%98%80',
    ]) {
      expect(() => parseHash(hash), hash).not.toThrow();
      expect(parseHash(hash).state.view).toBe('encodings');
    }
  });

  it('UrlState.XssPayloadsNeverReachEnumsOrNumbers', () => {
    const payloads = [
      '<img src=x onerror=alert(1)>',
      '"><script>alert(1)</script>',
      'javascript:alert(1)',
      "'-alert(1)-'",
    ];
    for (const p of payloads) {
      const q = encodeURIComponent(p);
      const { state, problems } = parseHash(
        `#view=${q}&enc.method=${q}&enc.cmap=${q}&theme=${q}&enc.L=${q}&att.custom=${q}`,
      );
      expect(state).toEqual(defaults());
      expect(problems).toHaveLength(6);
      // Messages quote at most a short preview of the payload (shown with textContent).
      for (const m of problems) expect(m.length).toBeLessThan(200);
    }
  });

  it('UrlState.HostileTextStaysInertText', () => {
    const p = '<img src=x onerror=alert(1)> & "quotes"';
    const { state, problems } = parseHash(`#att.text=${encodeURIComponent(p)}`);
    expect(problems).toEqual([]);
    expect(state['att.text']).toBe(p); // the page shows it through input.value / canvas text only
    expect(parseHash(`#att.text=${encodeURIComponent('a\u0007b')}`).problems).toHaveLength(1);
    expect(parseHash(`#att.text=${'x'.repeat(401)}`).problems).toHaveLength(1);
  });

  it('UrlState.ProblemMessagesPreviewLongValues', () => {
    const { problems } = parseHash(`#enc.method=${'z'.repeat(500)}`);
    expect(problems[0]).toContain('…');
    expect(problems[0].length).toBeLessThan(200);
  });

  it('UrlState.SerialiseDropsInvalidAndUnknownValues', () => {
    const hash = serialiseHash({ ...defaults(), 'enc.L': -5, bogus: 1, 'enc.D': 64 });
    expect(hash).toBe('enc.D=64');
  });
});

describe('the landing', () => {
  it('Landing.EveryRouteLinkOpensItsViewAndEncodingsDefaultsNameTheirView', () => {
    // Encodings at its defaults serialises to nothing: its link must still name it, or it would reopen the landing.
    expect(linkHash(defaults())).toBe('view=encodings');
    expect(linkHash({ ...defaults(), view: 'start' })).toBe('view=start');
    expect(START_ROUTES.length).toBeGreaterThanOrEqual(4);
    for (const route of START_ROUTES) {
      const hash = linkHash({ ...defaults(), ...route.state });
      expect(hash, route.label).not.toBe('');
      expect(parseHash(hash).state.view, route.label).toBe(route.state.view);
      expect(route.state.view).not.toBe('start');
    }
  });
});
