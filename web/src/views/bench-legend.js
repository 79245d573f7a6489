// The Benchmarks view's legend, one per kernel for both of its charts: the lines grouped by
// who wrote them (PosLab, each validated; the PyTorch peers), each a swatch of its colour and
// dash and a plain name, its variant id in the tooltip. HTML, so it wraps at any width.
import { STATUS } from '../bench/results.js';
import { plainVariant } from '../bench/variant-names.js';
import { el } from '../ui/dom.js';

/**
 * @param {{ label: string, variant: string, dtype?: string, peer: boolean, status: string }[]} series
 * @param {(s: any, i: number) => { colour: string, dashed: boolean, label: string }} look
 *   how line i is drawn and labelled on the charts
 */
export function benchLegend(series, look) {
  const legend = el('div', 'bench-legend');
  const groups = [
    ['PosLab', series.map((s, i) => [s, i]).filter(([s]) => !s.peer)],
    ['PyTorch peers', series.map((s, i) => [s, i]).filter(([s]) => s.peer)],
  ];
  for (const [name, members] of groups) {
    if (!members.length) continue;
    const list = el('ul');
    list.setAttribute('aria-label', name);
    for (const [s, i] of members) {
      const { colour, dashed, label } = look(s, i);
      const item = el('li');
      item.title = `variant ${label}`;
      const swatch = el('span', `bench-swatch${dashed ? ' dashed' : ''}`);
      swatch.style.borderTopColor = colour;
      swatch.setAttribute('aria-hidden', 'true');
      const unchecked = s.status === 'unchecked' ? ` (${STATUS.unchecked})` : '';
      item.append(swatch, el('span', '', `${plainVariant(s)}${unchecked}`));
      list.append(item);
    }
    const group = el('div', 'bench-legend-group');
    group.append(el('span', 'bench-legend-title', name), list);
    legend.append(group);
  }
  return legend;
}
