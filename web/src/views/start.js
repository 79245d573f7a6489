// The landing (the page's address with no hash): what PosLab is and five routes, each a link
// to a view with its default settings, so it opens, bookmarks and shares like any permalink.
// Kept to one screen at 1280 × 900 and 390 × 844 (tests/e2e/start.test.js).
import { START_INTRO, START_ROUTES } from '../content/start.js';
import { viewNamed } from '../state/registry.js';
import { linkHash } from '../state/url.js';
import { el } from '../ui/dom.js';
import { createViewSection } from './kit.js';

export default function createStartView({ root }) {
  const { section, intro } = createViewSection('start');
  intro.append(el('p', 'start-note', START_INTRO));
  const list = el('ul', 'start-routes');
  for (const route of START_ROUTES) {
    const a = el('a', 'start-route', route.label);
    a.href = `#${linkHash(route.state)}`;
    a.dataset.view = route.state.view;
    const item = el('li');
    const line = el('span', 'start-line', route.line);
    line.append(el('span', 'start-view', ` (${viewNamed(route.state.view).title})`)); // hidden on a phone: room
    item.append(a, line);
    list.append(item);
  }
  const gallery = el('p', 'start-note');
  const seeds = el('a', '', 'Seed gallery');
  seeds.href = '#view=gallery';
  gallery.append('A “seed” is one of the source documents PosLab checks, in the ', seeds, '.');
  intro.append(list, gallery);
  section.append(intro);
  root.append(section);
  return { section, update() {} };
}
