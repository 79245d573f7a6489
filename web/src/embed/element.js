// <poslab-figure>: a live PosLab plot in any page, from one module script. Attributes mirror
// the URL state (plot="heatmap" method="rope" len="128" dim="64" controls="0"); they are
// parsed against the playground's allow-lists and ranges, and what is refused shows as a
// message in the figure. It draws into an open shadow root, starts computing only when it
// comes near the viewport, and redraws when an attribute changes.
import mainCss from '../styles/main.css?inline';
import embedCss from './embed.css?inline';
import { figureCompute } from './compute.js';
import { observedAttributeNames, parseFigureAttributes } from './params.js';

// The playground's variables hang off :root; in a shadow root the host plays that part.
const sheet = () => {
  const s = new CSSStyleSheet();
  s.replaceSync(`${mainCss.replaceAll(':root', ':host')}\n:host { display: block; min-width: 0; }\n${embedCss}`);
  return s;
};

/**
 * Defines the element once: a second copy of the script (another URL, a bundle that
 * includes it again) finds it defined and does nothing.
 * @param {string | URL} [appBase] the built app's folder, for the "open in PosLab" link (none:
 *   no link, as in an app that bundles the element from npm without hosting the playground)
 */
export function definePoslabFigure(appBase) {
  if (customElements.get('poslab-figure')) return;
  let styles = null;
  const seen = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        seen.unobserve(e.target);
        e.target.start();
      }
    },
    { rootMargin: '200px' },
  );

  class PoslabFigure extends HTMLElement {
    static get observedAttributes() {
      return observedAttributeNames();
    }

    #figure = null;
    #started = false;
    #queued = false;

    constructor() {
      super();
      const root = this.attachShadow({ mode: 'open' });
      root.adoptedStyleSheets = [(styles ??= sheet())];
      // Holds the figure's place until it starts, so figures below the fold stay there.
      const placeholder = document.createElement('div');
      placeholder.className = 'embed-placeholder';
      root.append(placeholder);
    }

    connectedCallback() {
      if (!this.#started) seen.observe(this);
    }

    disconnectedCallback() {
      seen.unobserve(this);
    }

    attributeChangedCallback() {
      // Several attributes set in a row make one redraw.
      if (!this.#figure || this.#queued) return;
      this.#queued = true;
      queueMicrotask(() => {
        this.#queued = false;
        this.#figure.render(parseFigureAttributes(this.attributes));
      });
    }

    /**
     * Builds and draws the figure the first time it comes into view. The plotting code
     * (Chart.js, the views) loads only then, like the wasm: a page of figures nobody
     * scrolls to costs this script alone.
     */
    async start() {
      if (this.#started) return;
      this.#started = true;
      const placeholder = this.shadowRoot.querySelector('.embed-placeholder');
      let mountEmbed;
      try {
        ({ mountEmbed } = await import('./render.js'));
      } catch (e) {
        placeholder.className = 'embed-msg';
        placeholder.textContent = `PosLab could not load its plotting code: ${e?.message ?? e}`;
        return;
      }
      placeholder.remove();
      this.#figure = mountEmbed(this.shadowRoot, figureCompute(), {
        appBase,
        onDrawn: () => this.dispatchEvent(new Event('poslab-drawn')),
      });
      this.#figure.render(parseFigureAttributes(this.attributes));
    }
  }

  customElements.define('poslab-figure', PoslabFigure);
}
