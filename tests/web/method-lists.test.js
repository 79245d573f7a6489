// Every position-method list the page offers is the core's table (state/position-methods.js) cut
// by its rows' support bits and kinds: each method setting's values are its table list, written
// here from the rows themselves; each view's dropdowns offer exactly their setting's values; and
// a row added to the table (a copy of ALiBi's under another name) is offered by the Attention
// view's score biases, the language-model view's positions and the Encodings view without an edit
// to any of them, while the Encodings job refuses to draw it until it has its own matrix.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { POSITION_METHODS } from '../../web/src/state/position-methods.js';
import { PAIR_METHODS } from '../../web/src/state/methods.js';
import { SCHEMA, VIEWS } from '../../web/src/state/registry.js';
import { loadView } from '../../web/src/views/loaders.js';
import { PAIR_MATRICES } from '../../web/src/worker/jobs/encodings.js';

const names = (table, keep) => table.filter(keep).map((m) => m.name);
const ofKind =
  (...kinds) =>
  (m) =>
    kinds.includes(m.kind);
const drawn = (m) => m.support.core || m.support.bias; // the core's ops, not the trainer's alone

/** view name → setting → the table list it offers, from the rows of `table`. */
function tableLists(table) {
  const trainer = names(table, (m) => m.support.trainer);
  return {
    encodings: { method: names(table, drawn) },
    // A table the core draws (not Abacus's, a trainer's table of digit places).
    similarity: {
      method: names(table, (m) => drawn(m) && ofKind('added table', 'learned table', 'rotation', 'none')(m)),
    },
    attention: {
      pe: names(table, (m) => drawn(m) && ofKind('added table', 'learned table', 'none')(m)),
      rope: ['none', ...names(table, (m) => drawn(m) && m.kind === 'rotation')],
      bias: names(table, (m) => m.support.bias), // kSupportBias: multi-head attention's bias
    },
    'length-generalisation': {
      // Randomised: each method that reads the positions it is given (not NoPE, nor a gated one:
      // CoPE, FoX, nor one that computes its own: Abacus).
      methods: [
        ...trainer,
        ...names(table, (m) => m.support.trainer && !m.support.ownPositions && !ofKind('none', 'gated')(m)).map(
          (m) => `${m}-random`,
        ),
      ],
    },
    // Text: not a method that numbers digits (Abacus).
    'text-lab': { methods: names(table, (m) => m.support.trainer && !m.support.ownPositions) },
    // The language-model view (its name and prefix may change; its setting is `position`).
    [VIEWS.find((v) => v.settings?.position).name]: { position: names(table, (m) => m.support.gpt2) },
  };
}

/** 'attention', 'bias' → 'att.bias', as the views' registry `views` names it. */
const keyOf = (views, view, setting) => `${views.find((v) => v.name === view).prefix}.${setting}`;

/** A dropdown's choices: its options' values. */
const choices = (controls, key) => controls.find((c) => c.key === key).options.map(([value]) => value);

afterEach(() => {
  vi.doUnmock('../../web/src/state/position-methods.js');
  vi.doUnmock('../../web/src/content/methods.js');
  vi.resetModules();
});

describe('method lists', () => {
  it('MethodLists.EachMethodSettingIsItsTableList', () => {
    for (const [view, settings] of Object.entries(tableLists(POSITION_METHODS)))
      for (const [setting, list] of Object.entries(settings)) {
        const key = keyOf(VIEWS, view, setting);
        expect(SCHEMA[key].values, key).toEqual(list);
      }
  });

  it('MethodLists.NoOtherSettingListsMethods', () => {
    // A setting offering a method name the map above does not know is a list written by hand.
    // ('none' is also a scaling, a mask and a comparison: not counted.)
    const methods = new Set(POSITION_METHODS.map((m) => m.name).filter((m) => m !== 'none'));
    const known = Object.entries(tableLists(POSITION_METHODS)).flatMap(([view, settings]) =>
      Object.keys(settings).map((setting) => keyOf(VIEWS, view, setting)),
    );
    const listing = Object.keys(SCHEMA).filter((key) => SCHEMA[key].values?.some((v) => methods.has(v)));
    expect(listing.sort()).toEqual(known.sort());
  });

  it('MethodLists.EveryDefaultIsOneOfItsSettingsValues', () => {
    // The hand-picked defaults among a table list (the text lab's six methods) included.
    for (const [key, type] of Object.entries(SCHEMA)) expect(type.check(type.def).ok, key).toBe(true);
  });

  it('MethodLists.EveryDropdownOffersItsSettingsValues', async () => {
    let dropdowns = 0;
    for (const v of VIEWS) {
      const { controls } = await loadView(v.name);
      for (const c of controls ?? []) {
        if (c.kind !== 'select' || !Array.isArray(c.options) || !SCHEMA[c.key]?.values) continue;
        expect(c.options.map(([value]) => value).sort(), c.key).toEqual([...SCHEMA[c.key].values].sort());
        dropdowns++;
      }
    }
    expect(dropdowns).toBeGreaterThan(10);
  });

  it('MethodLists.EveryPairMethodHasItsMatrix', () => {
    // A pair method of the table without its matrix would be refused by the Encodings job.
    expect(Object.keys(PAIR_MATRICES).sort()).toEqual([...PAIR_METHODS].sort());
  });

  it('MethodLists.ARowAddedToTheTableIsOfferedWhereItsBitsSay', async () => {
    const alibi = POSITION_METHODS.find((m) => m.name === 'alibi');
    const table = [...POSITION_METHODS, { ...alibi, name: 'test-bias', aliases: [] }];
    vi.resetModules();
    vi.doMock('../../web/src/state/position-methods.js', () => ({ POSITION_METHODS: table }));
    vi.doMock('../../web/src/content/methods.js', async (original) => {
      const { METHOD_INFO, ...rest } = await original();
      return { ...rest, METHOD_INFO: { ...METHOD_INFO, 'test-bias': { ...METHOD_INFO.alibi, label: 'Test bias' } } };
    });
    const { SCHEMA: schema, VIEWS: views } = await import('../../web/src/state/registry.js');
    const { loadView: load } = await import('../../web/src/views/loaders.js');
    const lists = tableLists(table);
    for (const [view, settings] of Object.entries(lists))
      for (const [setting, list] of Object.entries(settings))
        expect(schema[keyOf(views, view, setting)].values, `${view}.${setting}`).toEqual(list);

    const lm = VIEWS.find((v) => v.settings?.position).name;
    const offered = [
      ['attention', 'bias'],
      ['encodings', 'method'],
      [lm, 'position'],
    ];
    for (const [view, setting] of offered) {
      const { controls } = await load(view);
      expect(choices(controls, keyOf(views, view, setting)), `${view}.${setting}`).toContain('test-bias');
    }
    const { controls } = await load('attention');
    expect(controls.find((c) => c.key === keyOf(views, 'attention', 'bias')).options).toContainEqual([
      'test-bias',
      'Test bias',
    ]);
    // Not where its bits do not say: ALiBi's row is no rotation and no trainer-free table.
    expect(lists.attention.rope).not.toContain('test-bias');
    expect(lists.similarity.method).not.toContain('test-bias');

    // The Encodings job draws no other method's matrix for it: it names the setting and refuses.
    const { encodings } = await import('../../web/src/worker/jobs/encodings.js');
    const p = Object.fromEntries(
      Object.keys(schema)
        .filter((key) => key.startsWith('enc.'))
        .map((key) => [key.slice(4), schema[key].def]),
    );
    expect(() => encodings({}, { ...p, method: 'test-bias' })).toThrow(/no \(L, L\) figure for test-bias/);
  });
});
