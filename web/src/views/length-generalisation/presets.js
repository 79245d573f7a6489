// The Length generalisation view's presets: Quick (the bundled example's settings) and Full
// (every method, about 80 minutes of one core), each a button that moves the settings, said once on the
// progress line (progress.js).
import { FULL, FULL_SETTINGS, QUICK_SETTINGS } from '../../lab/presets.js';

const toSettings = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [`lg.${k}`, v]));

/**
 * Adds the preset buttons (labActions' `button`); a click sets the preset's settings and tells
 * `onPreset(name)`.
 */
export function presetButtons(button, store, onPreset) {
  const quick = button(
    'Quick preset',
    'lg-quick',
    'copy, N = 5, learned, RoPE, ALiBi and NoPE, 1000 steps each, 3 seeds: the example shown before you train',
  );
  const full = button(
    'Full preset',
    'lg-full',
    'every method, plain and on randomised positions (NoPE, CoPE, FoX and Abacus plain only), 4 layers, N = 8, the task’s budget, ' +
      `3 seeds: ${3 * FULL.length} runs, about 80 minutes of one core (less with more cores)`,
  );
  const use = (name, settings) => {
    onPreset(name);
    store.set(toSettings(settings), { source: 'preset' });
  };
  quick.addEventListener('click', () => use('Quick', QUICK_SETTINGS));
  full.addEventListener('click', () => use('Full', FULL_SETTINGS));
}
