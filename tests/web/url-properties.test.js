// Property-based tests (fast-check) of the URL state and of what reads it like a link: any
// string in any setting of any view, unknown and repeated keys, whole arbitrary hashes, the
// lab's settings and <poslab-figure>'s attributes decode, without throwing, to a state whose
// every value its type accepts and that every view can draw (the combination rules hold, the
// jobs' own checks pass; on the built core, the job runs), with each refused value back at its
// default and a message naming its key; the state's permalink reads back unchanged, silently.
import fs from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLab } from './helpers/lab.js';
import { createTrainLab } from '../../web/src/core/poslab.js';
import {
  attributeKeys,
  observedAttributeNames,
  parseEmbedHash,
  parseFigureAttributes,
} from '../../web/src/embed/params.js';
import { DEFAULT_PLOT, PLOTS, resolvePlot } from '../../web/src/embed/plots.js';
import { figureAttributes } from '../../web/src/embed/snippets.js';
import { METHODS, runPlan } from '../../web/src/lab/presets.js';
import { MAX_ELEMENTS, RULES, refusal } from '../../web/src/state/combinations.js';
import { COUPLED_METHODS } from '../../web/src/state/methods.js';
import { decodeMask, encodeMask } from '../../web/src/state/mask-bits.js';
import { SCHEMA, VIEWS, defaults, pick, viewOfPrefix } from '../../web/src/state/registry.js';
import { MAX_HASH, parseHash, preview, readLink, serialiseHash } from '../../web/src/state/url.js';
import { JOB_WORK } from '../../web/src/worker/job-work.js';
import { MAX_EVAL_LENGTH } from '../../web/src/worker/jobs/extrapolation.js';
import { JOBS } from '../../web/src/worker/jobs/index.js';
import { MAX_SIM_LENGTH } from '../../web/src/worker/jobs/similarity.js';
import { tokenize } from '../../web/src/worker/jobs/tokens.js';

// A fixed seed: every run draws the same cases, and a failure names the case it shrank to.
const SEED = 20250125;
const RUNS = { key: 30, view: 100, hash: 150, attribute: 15, figure: 100, job: 100, train: 10 };
const check = (property, numRuns) => fc.assert(property, { seed: SEED, numRuns });

const KEYS = Object.keys(SCHEMA).sort();
const SETTING_VIEWS = VIEWS.filter((v) => v.settings);
const FIRST_SETTINGS = SETTING_VIEWS[0]; // Encodings (the landing, VIEWS[0], has none)

// ── What a link may carry ───────────────────────────────────────────────────────────────────

/** `s` as a query value (what the page writes): '&', '=', '#', '%' and the rest escaped. */
const encode = (s) => new URLSearchParams([['', s]]).toString().slice(1);

const NUMBER_TEXT = fc.oneof(
  fc.constantFrom(
    'NaN',
    'Infinity',
    '-Infinity',
    '+Infinity',
    '-0',
    '+0',
    '-0.0',
    '0e0',
    '1e308',
    '1.7976931348623157e308',
    '1e309',
    '-1e308',
    '1e-400',
    '5e-324',
    '9007199254740993',
    '123456789012345678901234567890',
    '0x10',
    '0b1',
    '1_000',
    '1,000',
    ' 1',
    '1 ',
    '.5',
    '5.',
    '1e',
    'e1',
    '--1',
    '١٢',
    '１２',
  ),
  fc.integer().map(String),
  fc.bigInt().map(String),
  fc.double().map(String),
  fc.double().map((x) => x.toExponential()),
);
const PERCENT = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 255 }).map((b) => `%${b.toString(16).padStart(2, '0')}`),
      fc.constantFrom('%', '%%', '%G0', '%2', '%u0041', '%E0%A4%A', '%F0%9F%98%80', '%00'),
    ),
    { maxLength: 12 },
  )
  .map((a) => a.join(''));
const SYNTAX = fc.string({
  unit: fc.constantFrom('&', '=', '#', '%', '+', ',', '.', ';', '?', '/', ' ', 'a', '1', '-', 'e', '\u0000', '😀'),
});
// Past every cap: MAX_RAW (2000), the text's maxLength, MAX_HASH (8192).
const LONG = fc
  .tuple(fc.constantFrom('a', '9', '%41', ',', '1,', ' ', 'é', '&x=1'), fc.integer({ min: 100, max: 9000 }))
  .map(([s, n]) => s.repeat(n));
const ANY_TEXT = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }), // any code point (fast-check 4's fullUnicodeString)
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }), // lone surrogates
  NUMBER_TEXT,
  PERCENT,
  SYNTAX,
  LONG,
  fc.constant(''),
);

// Values at and just past a type's limits, so that settings in range meet each other's rules.
function nearValid(type) {
  switch (type.kind) {
    case 'int':
      return fc
        .oneof(
          fc.integer({ min: type.min - 2, max: type.max + 2 }),
          fc.integer({ min: type.min, max: Math.min(type.max, type.min + 64) }),
        )
        .map(String);
    case 'num':
      return fc
        .oneof(
          fc.double({ min: type.min / 2, max: type.max * 2, noNaN: true }),
          fc.constantFrom(type.min, type.max, type.def),
        )
        .map(String);
    case 'enum':
      return fc.constantFrom(...type.values);
    case 'bool':
      return fc.constantFrom('0', '1', 'true', 'false', 'True', 'yes', '');
    case 'list':
      return fc
        .array(fc.integer({ min: type.min - 2, max: type.max + 2 }), { maxLength: type.maxCount + 2 })
        .map((a) => a.join(','));
    case 'names':
      return fc
        .array(fc.constantFrom(...type.values, 'spiral', ''), { maxLength: type.values.length + 2 })
        .map((a) => a.join(','));
    case 'text':
      return fc.oneof(
        fc.string({ maxLength: type.maxLength + 8 }),
        fc
          .array(fc.constantFrom('fox', '[PAD]', '<pad>', 'a', ' ', '\n', '\t'), { maxLength: 80 })
          .map((a) => a.join(' ')),
      );
    case 'token': // the custom mask: drawn ones, and ones that only look right
      return fc.oneof(
        fc
          .integer({ min: 1, max: 12 })
          .chain((n) => fc.array(fc.boolean(), { minLength: n * n, maxLength: n * n }).map((b) => encodeMask(b, n))),
        fc
          .tuple(fc.nat(120), fc.string({ unit: fc.constantFrom('A', 'g', '_', '-', '9', '.'), maxLength: 30 }))
          .map(([n, s]) => `${n}.${s}`),
      );
    default:
      throw new Error(`no generator for the kind ${type.kind}`);
  }
}

// Settings at small sizes and at their limits (for the jobs: they run in milliseconds there,
// and the settings meet each other's rules more often than over their whole ranges; powers of
// two, so that widths split into heads).
function small(type) {
  if (type.kind === 'int') {
    const lo = Math.max(type.min, -64);
    const powers = [1, 2, 4, 8, 16, 32, 64].filter((v) => v >= type.min && v <= type.max);
    return fc
      .oneof(fc.integer({ min: lo, max: Math.min(type.max, lo + 64) }), fc.constantFrom(type.max, ...powers))
      .map(String);
  }
  if (type.kind === 'num') {
    const upTo64 = fc.double({ min: type.min, max: Math.min(type.max, 64), noNaN: true });
    return fc.oneof(upTo64, fc.constantFrom(type.min, type.def, type.max)).map(String);
  }
  return nearValid(type);
}

const valueFor = (type) => fc.oneof({ arbitrary: nearValid(type), weight: 2 }, { arbitrary: ANY_TEXT, weight: 1 });
/** As the page writes it (encoded) or pasted as is, where '&', '=' and '%' take effect. */
const placed = (arb) => fc.tuple(arb, fc.boolean()).map(([raw, asIs]) => (asIs ? raw : encode(raw)));
const hashOf = (pairs) => `#${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`;

const STRANGE_KEYS = ['__proto__', 'constructor', 'toString', 'plot', 'controls', 'enc.L_hide', 'ENC.L', 'enc.', '.L'];
const keyFor = (view) =>
  fc.oneof(
    fc.constantFrom(...Object.keys(view.settings ?? {}).map((k) => `${view.prefix}.${k}`), 'view', 'theme'),
    fc.constantFrom(...KEYS, ...STRANGE_KEYS),
    fc.string(),
  );

/** A link to `view` with any of its settings small (encoded as the page writes them). */
function smallHash(view) {
  const settings = Object.fromEntries(
    Object.entries(view.settings ?? {}).map(([k, type]) => [`${view.prefix}.${k}`, small(type).map(encode)]),
  );
  return fc
    .record(settings, { requiredKeys: [] })
    .map((given) => hashOf([['view', view.name], ...Object.entries(given)]));
}

/** A link to `view` with any of its settings, then unknown, foreign and repeated keys. */
function viewHash(view) {
  const settings = Object.fromEntries(
    Object.entries(view.settings ?? {}).map(([k, type]) => [`${view.prefix}.${k}`, placed(valueFor(type))]),
  );
  const extra = fc.array(fc.tuple(placed(keyFor(view)), placed(ANY_TEXT)), { maxLength: 4 });
  return fc
    .tuple(fc.record(settings, { requiredKeys: [] }), extra)
    .map(([given, more]) => hashOf([['view', view.name], ...Object.entries(given), ...more]));
}

// ── What a decoded state must be ─────────────────────────────────────────────────────────────

const same = (a, b) =>
  Array.isArray(a)
    ? Array.isArray(b) && a.length === b.length && a.every((x, i) => Object.is(x, b[i]))
    : Object.is(a, b);

// Each check below lists what it found wrong and makes one assertion on the list: an expect()
// per value would take most of the file's time.

/** Every setting of the schema, each one its type accepts, and nothing else. */
function expectValid(state) {
  expect(Object.keys(state).sort()).toEqual(KEYS);
  expect(KEYS.filter((key) => !SCHEMA[key].check(state[key]).ok)).toEqual([]);
}

// What each view's job checks beyond the combination rules (the view draws nothing when it
// throws): what is wrong, or a falsy value.
const JOB_NEEDS = {
  sim: (p) => p.L > MAX_SIM_LENGTH && `L = ${p.L} is over ${MAX_SIM_LENGTH}`,
  ext: (p) => p.L > MAX_EVAL_LENGTH && `L = ${p.L} is over ${MAX_EVAL_LENGTH}`,
  att: (p) => {
    let tokens;
    try {
      tokens = tokenize(p.text);
    } catch (e) {
      return e.message;
    }
    return p.mask === 'custom' && decodeMask(p.custom, tokens.length) === null && `mask ${p.custom} does not decode`;
  },
  // The lab trains the methods it names, in the view's order: one run per method and seed
  // (with coupling on addition, those that take it).
  lg: (p) => {
    const plan = runPlan(p);
    const coupled = p.coupled && p.task === 'addition';
    const ids = METHODS.map((m) => m.id)
      .filter((id) => p.methods.includes(id) && (!coupled || COUPLED_METHODS.includes(id)))
      .flatMap((id) => Array(p.seeds).fill(id));
    if (
      plan.length === 0 ||
      !same(
        plan.map((r) => r.method),
        ids,
      )
    )
      return `runs ${plan.map((r) => r.id)} for ${ids}`;
    const bad = plan.find(
      ({ config: c }, i) =>
        c.task !== p.task ||
        c.trainLen !== p.N ||
        c.testLen !== 4 * p.N ||
        c.seed !== p.seed + (i % p.seeds) ||
        !(c.embedScale === p.embedScale || (p.embedScale === 0 && c.embedScale > 0)) ||
        !(Number.isInteger(c.steps) && c.steps > 0),
    );
    return bad && `run ${bad.id}: ${JSON.stringify(bad.config)}`;
  },
};

/** Each view's settings pass the checks its job makes before it computes. */
function expectDrawable(state) {
  const faults = [];
  for (const view of SETTING_VIEWS) {
    const p = pick(state, view.prefix);
    const fault = refusal(view.prefix, p)?.message || JOB_NEEDS[view.prefix]?.(p);
    if (fault) faults.push(`${view.name}: ${fault}`);
  }
  expect(faults).toEqual([]);
}

/** The state's permalink reads back as the same state, with nothing to report. */
function expectRoundTrip(state) {
  const again = readLink(`#${serialiseHash(state)}`);
  expect(again.problems).toEqual([]);
  expect(again.state).toEqual(state);
}

/**
 * Each key of the link is accounted for: a value its type takes is kept, a refused one is back
 * at its default with a message that starts with its key, an unknown or repeated key is named;
 * a value the combination rules then changed is named as clamped, or its view's defaults are.
 */
function expectReported(hash, { state, problems }) {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  if (body.length > MAX_HASH) {
    expect(state).toEqual(defaults());
    expect(problems).toEqual([expect.stringContaining('too long')]);
    return;
  }
  const parsed = parseHash(hash);
  const faults = [];
  const seen = new Set();
  for (const [key, raw] of new URLSearchParams(body)) {
    if (!Object.hasOwn(SCHEMA, key) || seen.has(key)) {
      if (!parsed.problems.some((m) => m.includes(`“${preview(key)}”`))) faults.push(`${key}: not named`);
      continue;
    }
    seen.add(key);
    const value = SCHEMA[key].parse(raw);
    if (!same(parsed.state[key], value.ok ? value.value : SCHEMA[key].def)) faults.push(`${key}: not ${raw}'s value`);
    if (!value.ok && !parsed.problems.some((m) => m.startsWith(`${key}=`))) faults.push(`${key}: refused silently`);
  }
  const fitted = problems.slice(parsed.problems.length);
  for (const key of KEYS) {
    if (same(state[key], parsed.state[key])) continue;
    const clamped = `${key} clamped to ${SCHEMA[key].format(state[key])}`;
    const reset = `the ${viewOfPrefix(key.slice(0, key.indexOf('.'))).name} view uses its defaults`;
    if (!fitted.some((m) => m.includes(clamped) || (m.endsWith(reset) && same(state[key], SCHEMA[key].def))))
      faults.push(`${key}: changed silently`);
  }
  expect(faults).toEqual([]);
  expect(problems.slice(0, parsed.problems.length)).toEqual(parsed.problems);
  expect(fitted.length).toBeLessThanOrEqual(Object.keys(RULES).length);
}

/** Everything a decoded link must be (readLink: the page's and the embeds' reader). */
function expectSound(hash) {
  const decoded = readLink(hash);
  expectValid(decoded.state);
  expectDrawable(decoded.state);
  expectReported(hash, decoded);
  expectRoundTrip(decoded.state);
}

// ── The playground's links ─────────────────────────────────────────────────────────────────

// Every setting of every view (and the page's own keys), one at a time.
const KEY_ROWS = [
  ...KEYS.filter((k) => !k.includes('.')).map((key) => ({ key, view: null })),
  ...SETTING_VIEWS.flatMap((v) => Object.keys(v.settings).map((k) => ({ key: `${v.prefix}.${k}`, view: v.name }))),
];

// Links the jobs refused after they had decoded without a message (the view drew nothing).
const REFUSED_BY_JOBS = [
  ['#view=extrapolation&ext.scaling=llama3&ext.lowff=5', 'ext.lowff'],
  ['#view=extrapolation&ext.scaling=ntk&ext.D=2', 'ext.D'],
  ['#view=extrapolation&ext.scaling=dynamic&ext.D=2', 'ext.D'],
  ['#enc.method=t5&enc.buckets=2', 'enc.buckets'],
  ['#enc.method=t5&enc.buckets=1024', 'enc.maxdist'],
  ['#enc.method=t5&enc.bidir=0&enc.buckets=1024', 'enc.maxdist'],
  ['#enc.method=t5&enc.maxdist=5', 'enc.maxdist'],
  ['#enc.method=alibi&enc.L=8192&enc.heads=64', 'enc.L'],
  ['#view=attention&att.D=63&att.H=3', 'att.D'],
  ['#view=attention&att.text=%20%09', 'att.text'],
  [`#view=attention&att.text=${'a+'.repeat(65)}`, 'att.text'],
];

describe('URL state properties', () => {
  it.each(KEY_ROWS)('UrlProperties.AnyValueOfOneSettingDecodesSoundly ($key)', ({ key, view }) => {
    const prefix = view ? `view=${view}&` : '';
    check(
      fc.property(placed(valueFor(SCHEMA[key])), (value) => expectSound(`#${prefix}${key}=${value}`)),
      RUNS.key,
    );
  });

  it.each(VIEWS.map((view) => ({ name: view.name, view })))(
    'UrlProperties.AnySettingsOfAViewTogetherDecodeSoundly ($name)',
    ({ view }) => {
      check(fc.property(viewHash(view), expectSound), RUNS.view);
    },
  );

  it('UrlProperties.WhollyArbitraryHashesDecodeSoundly', () => {
    const pairs = fc
      .array(fc.tuple(placed(keyFor(FIRST_SETTINGS)), placed(ANY_TEXT)), { maxLength: 8 })
      .map((p) => hashOf(p).slice(1));
    check(
      fc.property(fc.oneof(ANY_TEXT, pairs), (body) => {
        expectSound(body);
        expectSound(`#${body}`);
      }),
      RUNS.hash,
    );
    // Not a string at all (a caller's slip): the defaults, quietly.
    check(
      fc.property(
        fc.anything().filter((x) => typeof x !== 'string'),
        (x) => {
          expect(readLink(x)).toEqual({ state: defaults(), problems: [] });
        },
      ),
      RUNS.hash,
    );
  });

  it.each(REFUSED_BY_JOBS)('UrlProperties.LinksTheJobsRefusedFallBackWithAMessage (%s)', (hash, key) => {
    const { problems } = readLink(hash);
    expect(problems).toHaveLength(1);
    expect(problems[0].startsWith(`${key}=`)).toBe(true);
    expectSound(hash);
  });

  it('UrlProperties.NegativeZeroReadsAsZero', () => {
    // -0 passed as a whole number in range, and its permalink ('0') read back as another value.
    for (const hash of ['#off.k=-0', '#enc.head=-0', '#off.p=-0.0', '#lg.steps=-0e5']) {
      const { state } = readLink(hash);
      for (const key of KEYS) expect(Object.is(state[key], -0), key).toBe(false);
      expectSound(hash);
    }
  });
});

// ── The lab's configuration ────────────────────────────────────────────────────────────────

const LAB = VIEWS.find((v) => v.name === 'length-generalisation');

describe('lab configuration properties', () => {
  it('LabProperties.AnyLabLinkPlansOneRunPerNamedMethod', () => {
    check(
      fc.property(viewHash(LAB), (hash) => {
        const { state } = readLink(hash);
        expectValid(state);
        expect(JOB_NEEDS.lg(pick(state, LAB.prefix)) || null).toBeNull();
      }),
      RUNS.view,
    );
  });
});

// ── <poslab-figure> and the embed page ─────────────────────────────────────────────────────

const ON = ['1', 'true'];
const OFF = ['0', 'false'];

/** What an embed draws from: a plot on the list, its view, a drawable state, a sound link back. */
function expectSoundFigure(s) {
  expect(Object.hasOwn(PLOTS, s.plot), s.plot).toBe(true);
  expect(s.state.view).toBe(PLOTS[s.plot].view);
  expect(typeof s.controls).toBe('boolean');
  expect(s.hidden).toEqual([...new Set(s.hidden)].sort());
  for (const k of s.hidden) expect(Object.hasOwn(SCHEMA, k), k).toBe(true);
  for (const m of s.problems) expect(typeof m).toBe('string');
  expectValid(s.state);
  expectDrawable(s.state);
  expectRoundTrip(s.state);
}

/** The one attribute `name` = `value` (on a figure of `keys`' view) is kept or reported. */
function expectAttributeReported(name, value, keys, s) {
  const raw = value.toWellFormed(); // what an attribute can hold
  const said = (start) => s.problems.some((m) => m.startsWith(start));
  if (said('the link is too long')) {
    // The attributes, read as one link, are refused whole: the figure's defaults.
    expect(s.state).toEqual({ ...defaults(), view: PLOTS[s.plot].view });
    return;
  }
  if (name === 'plot') {
    expect(s.plot).toBe(resolvePlot(raw) ?? DEFAULT_PLOT);
    if (!resolvePlot(raw)) expect(said('plot “')).toBe(true);
  } else if (name === 'controls') {
    expect(s.controls).toBe(!OFF.includes(raw));
    if (![...ON, ...OFF].includes(raw)) expect(said('controls=')).toBe(true);
  } else if (name.endsWith('_hide')) {
    const key = keys.get(name.slice(0, -'_hide'.length));
    expect(s.hidden.includes(key)).toBe(ON.includes(raw));
    if (![...ON, ...OFF].includes(raw)) expect(said(`“${key}_hide=`)).toBe(true);
  } else {
    const key = keys.get(name);
    const parsed = SCHEMA[key].parse(raw);
    const changed = s.problems.some((m) => m.includes(`${key} clamped to`) || m.endsWith('view uses its defaults'));
    if (!parsed.ok) expect(said(`${key}=`), `${key} refused without a message`).toBe(true);
    if (!changed) expect(s.state[key]).toEqual(parsed.ok ? parsed.value : SCHEMA[key].def);
  }
}

const EMBED_VIEWS = VIEWS.filter((v) => v.embed).map((view) => ({ name: view.name, view }));

describe('embed properties', () => {
  it.each(EMBED_VIEWS)('EmbedProperties.AnyValueOfOneAttributeDecodesToADrawableFigure ($name)', ({ view }) => {
    const plots = Object.keys(PLOTS).filter((n) => PLOTS[n].view === view.name);
    const keys = attributeKeys(view.prefix);
    const names = [...keys.keys()];
    for (const name of [...names, ...names.map((n) => `${n}_hide`), 'plot', 'controls']) {
      const value = keys.has(name) ? valueFor(SCHEMA[keys.get(name)]) : ANY_TEXT;
      check(
        fc.property(fc.constantFrom(...plots), value, fc.boolean(), (plot, v, upper) => {
          const attr = upper ? name.toUpperCase() : name; // attribute names are case-insensitive
          const s = parseFigureAttributes(name === 'plot' ? { plot: v } : { plot, [attr]: v });
          expectSoundFigure(s);
          expectAttributeReported(name, v, name === 'plot' ? attributeKeys(PLOTS[s.plot].prefix) : keys, s);
        }),
        RUNS.attribute,
      );
    }
  });

  it('EmbedProperties.NoSettingHidesBehindAGlobalAttribute', () => {
    // `style="gptj"` was the element's CSS: the RoPE style was silently dropped, from the
    // Embed button's snippet too. It is `rope-style`; `style` is no setting's name.
    for (const { view } of EMBED_VIEWS) expect([...attributeKeys(view.prefix).keys()]).not.toContain('style');
    const state = { ...defaults(), 'enc.method': 'rope', 'enc.style': 'gptj' };
    const attrs = figureAttributes({ state, plot: 'encodings.table' });
    expect(attrs).toContainEqual(['rope-style', 'gptj']);
    const s = parseFigureAttributes(Object.fromEntries(attrs));
    expect(s.state['enc.style']).toBe('gptj');
    expect(s.problems).toEqual([]);
    expect(parseFigureAttributes({ plot: 'encodings.table', style: 'color: red' }).problems).toEqual([]);
  });

  it('EmbedProperties.ArbitraryAttributesDecodeToADrawableFigure', () => {
    const name = fc.oneof(
      fc.constantFrom(...observedAttributeNames(), 'class', 'style', 'data-x', 'aria-label', 'onload', 'href'),
      fc.string(),
    );
    const attrs = fc.oneof(
      fc.dictionary(name, ANY_TEXT, { maxKeys: 8 }),
      fc.array(fc.record({ name, value: ANY_TEXT }), { maxLength: 8 }), // an element's attributes
    );
    check(
      fc.property(attrs, (a) => expectSoundFigure(parseFigureAttributes(a))),
      RUNS.figure,
    );
  });

  it('EmbedProperties.ArbitraryEmbedHashesDecodeToADrawableFigure', () => {
    const embedKey = fc.constantFrom('plot', 'controls', 'enc.cmap_hide', 'att.H_hide', 'x_hide', '_hide');
    const pairs = fc
      .array(fc.tuple(fc.oneof(embedKey, placed(keyFor(FIRST_SETTINGS))), placed(ANY_TEXT)), { maxLength: 8 })
      .map((p) => hashOf(p));
    const hash = fc.oneof(pairs, ...EMBED_VIEWS.map(({ view }) => viewHash(view)), ANY_TEXT);
    check(
      fc.property(hash, (h) => expectSoundFigure(parseEmbedHash(h))),
      RUNS.figure,
    );
  });
});

// ── On the built core: the jobs draw every decoded link, the trainer takes every lab run ────

// Links whose job would take long here are only decoded above. A job's size is the
// scheduler's measure (worker/job-work.js) times ALiBi's heads (the core makes every head's
// bias); the attention job, absent there, grows as L · D² (its projections), L ≤ 64 words.
const WORK_BUDGET = 1 << 20;
function workOf(job, p) {
  if (job === 'attention') return 64 * p.D * p.D;
  return JOB_WORK[job](p) * (job === 'encodings' && p.method === 'alibi' ? p.heads : 1);
}

describe('decoded links on the built core', () => {
  let lab;
  let train;
  beforeAll(async () => {
    lab = await loadLab();
    const wasm = new URL('../../build/wasm/simd/poslab-train.wasm', import.meta.url);
    if (!fs.existsSync(wasm)) throw new Error('build/wasm/simd/poslab-train.wasm is missing: npm run build:wasm');
    train = await createTrainLab({ variant: 'simd', wasmBinary: fs.readFileSync(wasm) });
  });

  it.each(VIEWS.filter((v) => v.job).map((view) => ({ name: view.name, view })))(
    'UrlProperties.EveryDecodedLinkIsDrawnByItsJob ($name)',
    ({ view }) => {
      check(
        fc.property(smallHash(view), (hash) => {
          const p = pick(readLink(hash).state, view.prefix);
          if (workOf(view.job, p) <= WORK_BUDGET) JOBS[view.job](lab, p);
        }),
        RUNS.job,
      );
    },
  );

  it('UrlProperties.TheRulesKnowTheCoresTensorCap', () => {
    expect(MAX_ELEMENTS).toBe(lab.maxElements);
  });

  // The ALiBi row falls back to a bias at the core's cap (256 MiB, about a second to make):
  // TheRulesKnowTheCoresTensorCap checks its bound instead.
  const drawnHere = REFUSED_BY_JOBS.filter(([hash]) => !hash.includes('alibi'));
  it.each(drawnHere)('UrlProperties.LinksTheJobsRefusedAreDrawnAfterTheirFallBack (%s)', (hash) => {
    const prefix = Object.keys(RULES).find((x) => hash.includes(`${x}.`));
    JOBS[viewOfPrefix(prefix).job](lab, pick(readLink(hash).state, prefix));
  });

  it('LabProperties.TheTrainerTakesEveryRunOfALabLink', () => {
    check(
      fc.property(smallHash(LAB), (hash) => {
        for (const r of runPlan(pick(readLink(hash).state, LAB.prefix))) train.createRun(r.config).dispose();
      }),
      RUNS.train,
    );
  });
});
