// Light / dark / follow-the-system theme: a data-theme attribute on <html> that the CSS
// variables key off, then the charts re-read those variables.
import { applyChartTheme } from '../plots/chart-setup.js';

const media = window.matchMedia?.('(prefers-color-scheme: dark)');
let choice = 'auto';

export function applyTheme(next) {
  choice = next;
  const dark = choice === 'dark' || (choice === 'auto' && media?.matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  applyChartTheme();
}

media?.addEventListener?.('change', () => choice === 'auto' && applyTheme('auto'));

/** The theme after `current` in the toggle's cycle. */
export const nextTheme = (current) => ({ auto: 'light', light: 'dark', dark: 'auto' })[current] ?? 'auto';
