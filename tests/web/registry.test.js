// The view registry is the one list the page's parts read: the URL schema is its views'
// settings, the embeds' plot names are its figures (older names and positions still resolve),
// each view's job exists, and an error's field lands on the control it is about.
import { describe, expect, it } from 'vitest';
import { PLOTS, plotFor, resolvePlot } from '../../web/src/embed/plots.js';
import { SCHEMA, VIEWS, settingOfField, viewNamed } from '../../web/src/state/registry.js';
import { VIEW_LOADERS, loadView } from '../../web/src/views/loaders.js';
import { LM_JOBS, JOBS } from '../../web/src/worker/jobs/index.js';

describe('view registry', () => {
  it('Registry.SchemaIsEveryViewsSettings', () => {
    const prefixes = VIEWS.filter((v) => v.prefix).map((v) => v.prefix);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    expect(new Set(VIEWS.map((v) => v.name)).size).toBe(VIEWS.length);
    expect(SCHEMA.view.values).toEqual(VIEWS.map((v) => v.name));
    for (const key of Object.keys(SCHEMA)) {
      if (key === 'view' || key === 'theme') continue;
      const [prefix, short] = key.split('.');
      expect(Object.hasOwn(VIEWS.find((v) => v.prefix === prefix).settings, short), key).toBe(true);
    }
  });

  it('Registry.EveryJobExistsAndEveryViewLoads', () => {
    for (const v of VIEWS) if (v.job) expect(Object.hasOwn(JOBS, v.job), v.name).toBe(true);
    expect(Object.keys(VIEW_LOADERS)).toEqual(VIEWS.map((v) => v.name)); // one loader per view, no other
    expect(VIEWS.some((v) => 'load' in v)).toBe(false); // the registry imports no view
  });

  // What ui/primary.js puts before the figures on a phone (tests/e2e/phone.test.js finds it there).
  it('Registry.EveryViewWithSettingsNamesItsPrimaryControl', () => {
    const without = VIEWS.filter((v) => v.prefix && !(typeof v.primary === 'string' && v.primary.trim()));
    expect(without.map((v) => v.name)).toEqual([]);
  });

  it('Registry.EveryViewOnTheCycleRunsAJobThatExists', async () => {
    const onCycle = [];
    for (const v of VIEWS) {
      const factory = await loadView(v.name);
      if (factory.job === undefined && factory.executor === undefined) continue; // not on defineView
      onCycle.push(v.name);
      if (factory.executor) continue; // its own executor (the training pool)
      expect([...Object.keys(JOBS), ...LM_JOBS], v.name).toContain(factory.job);
    }
    expect(onCycle).toEqual(VIEWS.filter((v) => v.prefix).map((v) => v.name)); // every view with settings
  });

  it('Registry.EmbedPlotNamesAreStableAndOldOnesResolve', () => {
    // The names embeds have used since they shipped: none may disappear.
    expect(Object.keys(PLOTS)).toEqual([
      'encodings.table',
      'encodings.vectors',
      'encodings.waves',
      'encodings',
      'similarity.matrix',
      'similarity.offset',
      'similarity',
      'extrapolation',
      'offset.matrix',
      'offset.residual',
      'offset',
      'attention',
      'lens.grid',
      'lens.profile',
      'lens.spectrum',
      'lens.map',
      'lens.positions',
      'lens',
      'surgery.deltas',
      'surgery.positions',
      'surgery.before',
      'surgery.after',
      'surgery',
    ]);
    expect(resolvePlot('heatmap')).toBe('encodings.table');
    expect(resolvePlot('table')).toBe('encodings.table');
    expect(resolvePlot('similarity')).toBe('similarity');
    expect(resolvePlot('offset.2')).toBe('offset.residual'); // its position among the view's figures
    expect(resolvePlot('encodings.1')).toBe('encodings.vectors');
    expect(resolvePlot('offset.sides')).toBeNull(); // a figure without an embed of its own
    expect(resolvePlot('lm')).toBeNull();
    expect(plotFor('offset', 'sides')).toBe('offset'); // its Embed button embeds the view
    expect(plotFor('offset', 'residual')).toBe('offset.residual');
    expect(plotFor('gallery', undefined)).toBeNull();
  });

  it.each([
    ['extrapolation', 'lowFreqFactor', {}, 'ext.lowff'], // "llama3 needs 0 < low_freq_factor < …"
    ['extrapolation', 'highFreqFactor', {}, 'ext.highff'],
    ['extrapolation', 'betaFast', {}, 'ext.bfast'],
    ['extrapolation', 'factor', {}, 'ext.factor'],
    ['extrapolation', 'base', {}, 'ext.base'],
    ['extrapolation', 'originalLength', {}, 'ext.N'],
    ['encodings', 'maxDistance', { method: 'shaw' }, 'enc.clip'],
    ['encodings', 'maxDistance', { method: 't5' }, 'enc.maxdist'],
    ['attention', 'text', {}, 'att.text'],
    ['attention', 'heads', {}, 'att.H'],
    ['attention', 'customMask', {}, 'att.custom'],
    ['attention', 'window', {}, 'att.window'], // a field that is the setting's own name
    ['attention', 'q', {}, null],
    ['offset', undefined, {}, null],
    ['lm', 'tokens', {}, 'lm.text'], // the job's and the JS API's token checks
    ['lm', 'trace', {}, 'lm.text'], // GPT-NeoX: a text too long to trace
    ['lm', 'position', {}, 'lm.position'],
    ['lm', 'shape', {}, 'lm.init'],
    ['lm', 'preset', {}, 'lm.init'],
    ['lm', 'source', {}, null], // the loaded model is gone: beside the file input, no setting
    ['lens', 'rope', {}, 'ln.scaling'], // the core's refusal of a scaling
    ['lens', 'factor', {}, 'ln.factor'],
    ['lens', 'compare', {}, 'ln.compare'], // the job's: a model without RoPE has nothing to scale
    ['lens', 'layer', {}, 'ln.head'],
    ['lens', 'weights', {}, 'ln.model'],
    ['lens', 'tokens', {}, null], // the page-local text: the view shows it beside the text box
  ])('Registry.ErrorFieldFindsItsControl (%s %s)', (name, field, p, key) => {
    expect(settingOfField(viewNamed(name), field, p)).toBe(key);
  });
});
