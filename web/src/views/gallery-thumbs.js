// Live thumbnails on the seed gallery's cards: each card's preset run through the same worker
// job as its view, and the job's heatmap drawn small. Nothing is computed for a card until it
// comes near the viewport; the cards that do share one worker channel, one job at a time, in
// the order they came into view (the scheduler would let a newer request on a channel cancel
// the running one, so the queue here never has two requests out).
import { pick, viewNamed } from '../state/registry.js';
import { fitCombinations, parseHash, presetHash } from '../state/url.js';

const CHANNEL = 'gallery';

/**
 * The job that draws a preset's figure: its view's job and the settings a view would pick from
 * the preset (defaults filling the rest, combinations fitted as a link's would be), or null
 * when the view has no worker job of its own (training, language models).
 * @param {Record<string, any>} presetState a partial state with `view`
 * @returns {{ view: string, prefix: string, job: string, params: Record<string, any> } | null}
 */
export function thumbnailJob(presetState) {
  const view = viewNamed(presetState.view);
  if (!view?.job) return null;
  const { state } = fitCombinations(parseHash(presetHash(presetState)).state);
  return { view: view.name, prefix: view.prefix, job: view.job, params: pick(state, view.prefix) };
}

/** The heatmap a thumbnail shows: the view's main one, the evaluated table, else the first. */
export function thumbnailHeatmap(result) {
  const maps = result?.heatmaps ?? {};
  return maps.main ?? maps.eval ?? Object.values(maps)[0] ?? null;
}

/**
 * @param {{ request: (channel: string, job: string, params: any) => Promise<any> }} compute
 * @returns {{ watch: (canvas: HTMLCanvasElement, presetState: Record<string, any>) => void }}
 */
export function createThumbnails(compute) {
  const queue = [];
  let busy = false;

  async function drain() {
    if (busy) return;
    busy = true;
    while (queue.length) {
      const { canvas, job } = queue.shift();
      try {
        const result = await compute.request(CHANNEL, job.job, job.params);
        draw(canvas, thumbnailHeatmap(result));
      } catch (e) {
        canvas.closest('.thumb')?.setAttribute('data-error', e.message);
      }
    }
    busy = false;
  }

  const seen = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        seen.unobserve(e.target);
        queue.push(pending.get(e.target));
        pending.delete(e.target);
      }
      drain();
    },
    { rootMargin: '100px' },
  );
  const pending = new Map(); // canvas → { canvas, job }, until it nears the viewport

  return {
    watch(canvas, presetState) {
      const job = thumbnailJob(presetState);
      if (!job) return;
      canvas.dataset.job = job.job;
      pending.set(canvas, { canvas, job });
      seen.observe(canvas);
    },
  };
}

// The worker painted the heatmap (a bitmap, or RGBA where it could not); it is scaled to the
// canvas, smoothing when many cells share a pixel.
function draw(canvas, hm) {
  if (!hm) return;
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.max(1, Math.round(canvas.clientWidth * ratio));
  canvas.height = Math.max(1, Math.round(canvas.clientHeight * ratio));
  const ctx = canvas.getContext('2d');
  let image = hm.bitmap;
  if (!image) {
    const [h, w] = hm.rgbaSize ?? [hm.rows, hm.cols];
    image = new OffscreenCanvas(w, h);
    image.getContext('2d').putImageData(new ImageData(hm.rgba, w, h), 0, 0);
  }
  ctx.imageSmoothingEnabled = image.width > canvas.width || image.height > canvas.height;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
  hm.bitmap?.close?.();
  canvas.dataset.drawn = 'true';
}
