// The KaTeX half of ui/math.js, split off so that only pages showing formulas load it.
import katex from 'katex';
import 'katex/dist/katex.min.css';

export function render(el, tex, display) {
  katex.render(tex, el, { displayMode: display, throwOnError: false, trust: false, output: 'htmlAndMathml' });
}
