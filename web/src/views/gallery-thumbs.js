// Live thumbnails on the seed gallery's cards (what each shows: gallery-thumb-plan.js). A
// card's job is asked for only while the card is near the viewport; every card shares one
// worker channel with one job out at a time, in the order the cards came near (the scheduler
// lets a newer request on a channel cancel the running one, so a second is never sent before
// the first returns). A card that leaves again before its turn goes back to waiting. Each
// thumbnail's state is on its figure's data-state: label, waiting, queued, computing, drawn
// or error.
import { createThumbnail } from '../plots/thumbnail.js';
import { thumbnailPlan } from './gallery-thumb-plan.js';

const CHANNEL = 'gallery';
const NEAR = '150px 0px'; // a card this close to the viewport is queued

/**
 * @param {{ request: (channel: string, job: string, params: any) => Promise<any> }} compute
 * @returns {{ element: (preset: Record<string, any>) => HTMLElement }}
 */
export function createThumbnails(compute) {
  const cards = new Map(); // figure element → { el, box, plan, thumbnail }
  const queue = [];
  let busy = false;

  const near = new IntersectionObserver(
    (entries) => {
      for (const { target, isIntersecting } of entries) {
        const card = cards.get(target);
        const state = target.dataset.state;
        if (isIntersecting && state === 'waiting') {
          queue.push(card);
          target.dataset.state = 'queued';
        } else if (!isIntersecting && state === 'queued') {
          queue.splice(queue.indexOf(card), 1);
          target.dataset.state = 'waiting';
        }
      }
      drain();
    },
    { rootMargin: NEAR },
  );

  async function drain() {
    if (busy) return;
    busy = true;
    while (queue.length) {
      const card = queue.shift();
      card.el.dataset.state = 'computing';
      try {
        // Background work: no input waits for a thumbnail, so none runs on the main thread.
        const result = await compute.request(CHANNEL, card.plan.job, card.plan.params, { inline: false });
        if (result === null) {
          // Superseded (not by this queue): observed afresh, so it queues again if still near.
          card.el.dataset.state = 'waiting';
          near.unobserve(card.el);
          near.observe(card.el);
          continue;
        }
        show(card, result);
        near.unobserve(card.el);
        card.el.dataset.state = 'drawn';
      } catch (e) {
        near.unobserve(card.el);
        fail(card, e.message);
      }
    }
    busy = false;
  }

  return {
    /** The thumbnail of a card whose first preset is `preset`: a figure, its box sized before it draws. */
    element(preset) {
      const el = document.createElement('figure');
      el.className = 'thumb';
      const box = document.createElement('div');
      box.className = 'thumb-box';
      const caption = document.createElement('figcaption');
      el.append(box, caption);
      let plan;
      try {
        plan = thumbnailPlan(preset);
      } catch (e) {
        caption.textContent = 'No preview';
        fail({ el, box }, e.message);
        return el;
      }
      caption.textContent = plan.caption;
      if (plan.kind === 'label') {
        el.dataset.state = 'label';
        box.append(label('No live preview'));
        return el;
      }
      const canvas = document.createElement('canvas');
      canvas.setAttribute('role', 'img');
      canvas.setAttribute('aria-label', `Live thumbnail: ${plan.caption}`);
      box.append(canvas);
      const card = { el, box, plan, thumbnail: createThumbnail(box, canvas) };
      cards.set(el, card);
      el.dataset.state = 'waiting';
      near.observe(el);
      return el;
    },
  };
}

function label(text) {
  const p = document.createElement('p');
  p.className = 'thumb-label';
  p.textContent = text;
  return p;
}

function fail(card, message) {
  card.el.dataset.state = 'error';
  card.box.replaceChildren(label(message));
}

// The plan's figure from the job's result; the result's other pictures are let go at once.
function show(card, result) {
  const { job, heatmap, line, shade } = card.plan;
  if (heatmap) {
    const hm = result.heatmaps?.[heatmap];
    if (!hm) throw new Error(`the ${job} job returned no ${heatmap} heatmap`);
    card.thumbnail.showHeatmap(hm);
  } else {
    const values = result[line];
    if (!values?.length) throw new Error(`the ${job} job returned no ${line} series`);
    card.thumbnail.showLine(values, shade);
  }
  for (const [key, hm] of Object.entries(result.heatmaps ?? {})) if (key !== heatmap) hm.bitmap?.close?.();
}
