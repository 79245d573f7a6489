// The gallery's thumbnails: each card's first preset becomes its view's worker job with the
// settings its link opens with, and the figure named by the plan is in what that job returns
// on the built core; training and language-model views never run for a thumbnail; the line
// of a small line plot spans its box and breaks where values are missing.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLab } from './helpers/lab.js';
import { SEED_CARDS } from '../../web/src/content/gallery.js';
import { VIEWS, pick, viewNamed } from '../../web/src/state/registry.js';
import { presetHash, readLink } from '../../web/src/state/url.js';
import { JOBS } from '../../web/src/worker/jobs/index.js';
import { THUMBNAIL_FIGURES, thumbnailPlan } from '../../web/src/views/gallery-thumb-plan.js';
import { linePoints } from '../../web/src/plots/thumbnail.js';

let lab;

beforeAll(async () => {
  lab = await loadLab();
});

describe('gallery thumbnail plans', () => {
  it('Gallery.EveryCardRunsItsFirstPresetsJob', () => {
    for (const card of SEED_CARDS) {
      const preset = card.presets[0].state;
      const plan = thumbnailPlan(preset);
      const view = viewNamed(preset.view);
      expect(plan.kind, `seed ${card.seed}`).toBe('live');
      expect(plan.job).toBe(view.job);
      // The settings the view has when the preset's link is opened, the preset's own among them.
      expect(plan.params).toEqual(pick(readLink(presetHash(preset)).state, view.prefix));
      for (const [key, value] of Object.entries(preset))
        if (key !== 'view') expect(plan.params[key.slice(key.indexOf('.') + 1)], key).toEqual(value);
    }
  });

  it('Gallery.EveryCardsFigureIsInItsJobsResult', async () => {
    for (const card of SEED_CARDS) {
      const plan = thumbnailPlan(card.presets[0].state);
      const result = await JOBS[plan.job](lab, plan.params, { progress() {} });
      const hm = result.heatmaps[plan.heatmap];
      expect(hm, `seed ${card.seed}: ${plan.heatmap}`).toBeDefined();
      expect(hm.data.length).toBe(hm.rows * hm.cols);
    }
  });

  it('Gallery.EveryViewWithAJobHasAThumbnailFigure', () => {
    for (const view of VIEWS.filter((v) => v.job)) {
      const chosen = THUMBNAIL_FIGURES[view.name];
      expect(chosen, view.name).toBeDefined();
      expect(Object.keys(view.figures), view.name).toContain(chosen.figure);
      const plan = thumbnailPlan({ view: view.name });
      expect(plan.caption).toBe(`${view.title}: ${view.figures[chosen.figure].title}`);
    }
  });

  it('Gallery.AttentionThumbnailShowsTheSoftmaxWeights', () => {
    const plan = thumbnailPlan({ view: 'attention', 'att.mask': 'causal' });
    expect(plan.heatmap).toBe('weights');
    expect(plan.caption).toBe('Attention & masks: Softmax weights');
  });

  it('Gallery.LengthGeneralisationNeverTrainsForAThumbnail', async () => {
    // copy at N = 8: BOS x SEP y EOS is 2·8 + 3 = 19 tokens trained, 2·32 + 3 = 67 tested.
    const plan = thumbnailPlan({ view: 'length-generalisation', 'lg.task': 'copy', 'lg.N': 8 });
    expect(plan).toMatchObject({ kind: 'live', job: 'extrapolation', line: 'nearest', shade: 19 });
    expect(plan.params).toMatchObject({ N: 19, L: 67, D: 64, scaling: 'none' });
    expect(plan.caption).toMatch(/^Not trained/);
    // addition at N = 4 on the small model: 3·4 + 5 = 17 and 3·16 + 5 = 53 tokens, width 32.
    const small = thumbnailPlan({
      view: 'length-generalisation',
      'lg.task': 'addition',
      'lg.N': 4,
      'lg.size': 'small',
    });
    expect(small.params).toMatchObject({ N: 17, L: 53, D: 32 });

    const result = await JOBS[plan.job](lab, plan.params, { progress() {} });
    const line = result[plan.line];
    expect(line.length).toBe(67);
    // Sinusoidal positions beyond the trained ones are never closer to a trained one than the
    // trained neighbours are to each other (cosine of adjacent positions).
    const inside = Math.min(...line.slice(1, 19));
    expect(Math.max(...line.slice(19))).toBeLessThanOrEqual(inside + 1e-6);
  });

  it('Gallery.ModelViewsGetALabelNotAComputation', () => {
    for (const name of ['lm', 'long-context']) {
      const plan = thumbnailPlan({ view: name });
      expect(plan.kind, name).toBe('label');
      expect(plan.caption).toMatch(/needs a language model/);
      expect(plan.job).toBeUndefined();
    }
    expect(thumbnailPlan({ view: 'benchmarks' })).toEqual({
      kind: 'label',
      caption: 'Benchmarks: no figure to preview',
    });
  });

  it('Gallery.BadPresetsAreRefusedWithTheirSetting', () => {
    expect(() => thumbnailPlan({ view: 'no-such-view' })).toThrow(/names no view: "no-such-view"/);
    expect(() => thumbnailPlan(null)).toThrow(/names no view/);
    const refusal = (preset) => {
      try {
        thumbnailPlan(preset);
      } catch (e) {
        return { message: e.message, field: e.field };
      }
      return null;
    };
    expect(refusal({ view: 'encodings', 'enc.L': 0 })).toEqual({
      message: 'gallery preset for encodings: enc.L = 0 must be between 1 and 8192',
      field: 'enc.L',
    });
    expect(refusal({ view: 'encodings', 'enc.size': 3 })?.field).toBe('enc.size');
    // Fine alone, refused together (the cell cap): an error, not a quietly clamped figure.
    expect(refusal({ view: 'encodings', 'enc.L': 8192, 'enc.D': 4096 })?.message).toMatch(/enc\.L.*clamped/);
  });
});

describe('thumbnail line', () => {
  it('Thumbnail.LineSpansTheBoxAndBreaksAtMissingValues', () => {
    // 100 × 50 box, 4 px padding: x from 4 to 96 in thirds, y from 46 (lowest) to 4 (highest).
    const pts = linePoints([0, 1, NaN, 0.5], 100, 50, 4);
    expect(pts[0]).toEqual([4, 46]);
    expect(pts[1][0]).toBeCloseTo(4 + 92 / 3, 12);
    expect(pts[1][1]).toBe(4);
    expect(pts[2]).toBeNull();
    expect(pts[3]).toEqual([96, 25]);
  });

  it('Thumbnail.FlatAndSingleValuesSitOnTheMiddle', () => {
    expect(linePoints([2, 2, 2], 100, 50, 4).map((p) => p[1])).toEqual([25, 25, 25]);
    expect(linePoints([7], 100, 50, 4)).toEqual([[50, 25]]);
    expect(linePoints([NaN, Infinity], 100, 50, 4)).toEqual([null, null]);
  });
});
