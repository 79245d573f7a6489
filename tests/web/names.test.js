// The page's name lists and defaults (state/registry.js) against the core's own (lab.names,
// lab.defaults of the built wasm), so a name or default changed in the core fails here instead
// of leaving a control that offers what the core refuses. Also: NoPE is 'none' everywhere on
// the page, and old links that wrote 'nope' still open.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLab } from './helpers/lab.js';
import {
  BIASES,
  CORE_DEFAULTS,
  GPT2_POSITIONS,
  LAYOUTS,
  MASKS,
  METRICS,
  ROPE_STYLES,
  SCALINGS,
  SCHEMA,
  VIEWS,
} from '../../web/src/state/registry.js';
import { parseEmbedHash, parseFigureAttributes } from '../../web/src/embed/params.js';
import { parseHash, serialiseHash } from '../../web/src/state/url.js';

let lab;

beforeAll(async () => {
  lab = await loadLab();
});

const sorted = (list) => [...list].sort();

describe('names and defaults', () => {
  it.each([
    ['ropeStyles', ROPE_STYLES],
    ['ropeScalings', SCALINGS],
    ['metrics', METRICS],
    ['layouts', LAYOUTS],
    ['positionBiases', BIASES],
    ['gpt2Positions', GPT2_POSITIONS],
    ['masks', MASKS.filter((m) => m !== 'custom')], // custom cells are the page's, sent as a bias
  ])('Names.PageListMatchesTheCore (%s)', (coreList, pageList) => {
    expect(sorted(pageList)).toEqual(sorted(lab.names[coreList]));
  });

  it('Names.PageDefaultsAreTheCores', () => {
    expect(lab.defaults).toMatchObject(CORE_DEFAULTS);
    expect(lab.defaults.rope.base).toBe(CORE_DEFAULTS.base);
  });

  it('Names.EveryBaseSettingStartsAtTheCoreDefault', () => {
    const bases = Object.keys(SCHEMA).filter((k) => k.endsWith('.base'));
    expect(bases.length).toBe(VIEWS.filter((v) => v.settings?.base).length);
    for (const key of bases) expect(SCHEMA[key].def, key).toBe(lab.defaults.base);
  });

  it('Names.NopeIsNoneAndOldLinksStillOpen', () => {
    for (const key of ['enc.method', 'sim.method']) {
      expect(SCHEMA[key].values).toContain('none');
      expect(SCHEMA[key].values).not.toContain('nope');
      const { state, problems } = parseHash(`#${key}=nope`);
      expect(problems).toEqual([]);
      expect(state[key]).toBe('none');
      expect(serialiseHash(state)).toBe(`${key}=none`);
      expect(SCHEMA[key].check('nope').ok).toBe(false); // read as an alias, never stored
    }
    // Old embeds too: the iframe's hash and <poslab-figure method="nope">.
    expect(parseEmbedHash('#plot=similarity&sim.method=nope').state['sim.method']).toBe('none');
    const figure = parseFigureAttributes({ plot: 'heatmap', method: 'nope' });
    expect([figure.state['enc.method'], figure.problems]).toEqual(['none', []]);
  });
});
