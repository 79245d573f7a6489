// Light / dark / follow-the-system theme: a data-theme attribute on <html> that the CSS
// variables key off, then the plots re-read those variables: PosLab's own canvases at once,
// Chart.js (loaded only where a view draws bars) through the event.
import { redrawSurfaces } from '../plots/surface.js';

/** Fired on document after every theme change. */
export const THEME_EVENT = 'poslab:theme';

const media = window.matchMedia?.('(prefers-color-scheme: dark)');
let choice = 'auto';

export function applyTheme(next) {
  choice = next;
  const dark = choice === 'dark' || (choice === 'auto' && media?.matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  redrawSurfaces();
  document.dispatchEvent(new Event(THEME_EVENT));
}

media?.addEventListener?.('change', () => choice === 'auto' && applyTheme('auto'));

/** The theme after `current` in the toggle's cycle. */
export const nextTheme = (current) => ({ auto: 'light', light: 'dark', dark: 'auto' })[current] ?? 'auto';
