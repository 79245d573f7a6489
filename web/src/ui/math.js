// KaTeX rendering of the formulas (bundled with its fonts: no CDN). TeX strings come from
// content/ only; KaTeX's trust option stays off so no formula can carry HTML or links.
import katex from 'katex';
import 'katex/dist/katex.min.css';

export function renderMath(el, tex, display = true) {
  katex.render(tex, el, { displayMode: display, throwOnError: false, trust: false, output: 'htmlAndMathml' });
}
