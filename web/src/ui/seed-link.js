// "seed 004" in a view's prose, written as a link to that seed's card in the Seed gallery, with
// one plain sentence on what a seed is: the word is the lab's own, and a newcomer meets it on
// the first screen. The link is an ordinary permalink to the gallery; once the gallery is shown
// the page scrolls to the card (its id: seedCardId) and focuses it.
import { setProse } from './prose.js';

export const SEED_WORDS =
  'A “seed” is one of the source documents PosLab checks, each in the Seed gallery with what it gets wrong.';
const SEED = /\b(seed (\d{3}))\b/gi;

/** The id of seed `seed`'s card in the gallery ('004' → 'seed-004'). */
export const seedCardId = (seed) => `seed-${seed}`;

/** Scrolls to and focuses the card with this id once it is on screen (the gallery loads on first use). */
function revealCard(id, until = performance.now() + 5000) {
  const card = document.getElementById(id);
  if (card && card.offsetParent !== null) {
    card.scrollIntoView({ block: 'start' });
    card.focus({ preventScroll: true });
  } else if (performance.now() < until) requestAnimationFrame(() => revealCard(id, until));
}

/**
 * Replaces el's content with `text` (backticked spans as code), each "seed NNN" a link to its
 * card; returns whether there was one.
 */
export function setSeedProse(el, text) {
  const parts = String(text).split(SEED); // [text, 'seed 004', '004', text, …]
  el.replaceChildren();
  for (let i = 0; i < parts.length; i += 3) {
    const span = document.createElement('span');
    setProse(span, parts[i]);
    el.append(...span.childNodes);
    if (i + 2 >= parts.length) break;
    const a = document.createElement('a');
    a.href = '#view=gallery';
    a.textContent = parts[i + 1];
    a.title = SEED_WORDS;
    const id = seedCardId(parts[i + 2]);
    a.addEventListener('click', () => requestAnimationFrame(() => revealCard(id)));
    el.append(a);
  }
  return parts.length > 1;
}
