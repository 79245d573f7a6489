// The gallery's thumbnails: each card's first preset becomes its view's worker job with the
// settings the view itself would use, and the heatmap a thumbnail shows is picked by name.
import { describe, expect, it } from 'vitest';
import { SEED_CARDS } from '../../web/src/content/gallery.js';
import { pick, viewNamed } from '../../web/src/state/registry.js';
import { parseHash, presetHash } from '../../web/src/state/url.js';
import { thumbnailHeatmap, thumbnailJob } from '../../web/src/views/gallery-thumbs.js';

describe('gallery thumbnails', () => {
  it('Gallery.EveryCardHasAThumbnailJob', () => {
    for (const card of SEED_CARDS) {
      const preset = card.presets[0].state;
      const job = thumbnailJob(preset);
      expect(job, `seed ${card.seed}`).not.toBeNull();
      const view = viewNamed(preset.view);
      expect(job.job).toBe(view.job);
      // The same settings the view picks when the preset's link is opened.
      expect(job.params).toEqual(pick(parseHash(presetHash(preset)).state, view.prefix));
      for (const [key, value] of Object.entries(preset))
        if (key !== 'view') expect(job.params[key.slice(key.indexOf('.') + 1)], key).toEqual(value);
    }
  });

  it('Gallery.NoThumbnailJobForTrainingOrUnknownViews', () => {
    expect(thumbnailJob({ view: 'length-generalisation', 'lg.N': 8 })).toBeNull();
    expect(thumbnailJob({ view: 'no-such-view' })).toBeNull();
  });

  it('Gallery.ThumbnailShowsMainThenEvalThenFirst', () => {
    const a = { rows: 1 };
    const b = { rows: 2 };
    expect(thumbnailHeatmap({ heatmaps: { other: b, main: a } })).toBe(a);
    expect(thumbnailHeatmap({ heatmaps: { train: b, eval: a } })).toBe(a);
    expect(thumbnailHeatmap({ heatmaps: { head0: a, head1: b } })).toBe(a);
    expect(thumbnailHeatmap({})).toBeNull();
    expect(thumbnailHeatmap(null)).toBeNull();
  });
});
