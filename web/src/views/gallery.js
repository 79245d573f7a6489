// The Seed gallery view: a card per seed, each linking to the permalink of the preset that
// reproduces its figure, with what the seed gets wrong and a live thumbnail of that figure.
// Links are ordinary hash links, so they open in place, in a new tab, or get copied like any
// other permalink.
import { SEED_CARDS } from '../content/gallery.js';
import { viewNamed } from '../state/registry.js';
import { presetHash } from '../state/url.js';
import { seedCardId } from '../ui/seed-link.js';
import { createThumbnails } from './gallery-thumbs.js';
import { createViewSection, textIntro } from './kit.js';

export default function createGalleryView({ root, compute }) {
  const thumbnails = createThumbnails(compute);
  const { section, intro } = createViewSection('gallery');
  textIntro(
    intro,
    'Seed gallery',
    'Each card’s thumbnail is drawn live from the settings that rebuild the document’s figure; its links open those settings in their view.',
  );
  const cards = document.createElement('div');
  cards.className = 'cards';
  for (const card of SEED_CARDS) {
    const el = document.createElement('article');
    el.className = 'card';
    el.id = seedCardId(card.seed); // where a "seed NNN" link in a view's prose lands (ui/seed-link.js)
    el.tabIndex = -1;
    const title = document.createElement('h3');
    title.textContent = `Seed ${card.seed}: ${card.title}`;
    const thumb = thumbnails.element(card.presets[0].state);
    const shows = document.createElement('p');
    shows.textContent = card.shows;
    const wrong = document.createElement('p');
    wrong.className = 'wrong';
    wrong.textContent = `Where it is wrong: ${card.wrong}`;
    const links = document.createElement('div');
    links.className = 'links';
    for (const preset of card.presets) {
      const a = document.createElement('a');
      a.className = 'open';
      a.href = `#${presetHash(preset.state)}`;
      a.textContent = preset.label;
      a.title = `Opens ${viewNamed(preset.state.view).title}`;
      links.append(a);
    }
    el.append(title, thumb, shows, wrong, links);
    cards.append(el);
  }
  section.append(intro, cards);
  root.append(section);
  return { section, update() {} };
}
