// The canvas under PosLab's own plots: sized to its box at the device's pixel ratio, redrawn
// on resize and on a theme change, with a cached base layer (axes, colour bar: what changes
// only with the ranges) under a layer redrawn on every update (the data, the hover mark).

const live = new Set();

/** Redraws every live surface with the theme's colours (called after a theme switch). */
export function redrawSurfaces() {
  for (const s of live) s.retheme();
}

/** The theme's plot colours, read from the CSS variables where the canvas sits. */
export function themeColours(el) {
  const css = getComputedStyle(el);
  const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  return { fg: v('--fg-muted', '#666'), grid: v('--grid', 'rgba(0,0,0,0.1)'), bg: v('--plot-bg', '#fff') };
}

/**
 * @param {HTMLElement} box the element whose size the canvas takes
 * @param {HTMLCanvasElement} canvas
 * @param {{ base: (ctx: CanvasRenderingContext2D, size: { width: number, height: number },
 *   colours: ReturnType<typeof themeColours>) => void,
 *   top: (ctx: CanvasRenderingContext2D, size: { width: number, height: number }) => void }} layers
 *   sizes in CSS pixels; both draw in CSS pixels (the scale is set for them)
 */
export function createSurface(box, canvas, layers) {
  canvas.style.display = 'block';
  canvas.style.width = '100%';
  canvas.style.height = '100%';
  const ctx = canvas.getContext('2d');
  const baseCanvas = document.createElement('canvas');
  let baseValid = false; // false when the ranges, the size or the theme changed
  let colours = null; // read from CSS once per theme: getComputedStyle forces a style pass
  let hasData = false; // nothing is painted before the first update (an empty frame is wasted work)
  let painted = false;
  let firstPaint = null; // the first paint, a task of its own (see invalidate)
  let size = { width: 0, height: 0, ratio: 1 };

  // Sizes come from the observer only: reading the box's size on every update would force a
  // layout in the middle of a redraw.
  function resize(width, height) {
    const ratio = window.devicePixelRatio || 1;
    if (width === size.width && height === size.height && ratio === size.ratio) return false;
    size = { width, height, ratio };
    canvas.width = baseCanvas.width = Math.max(1, Math.round(width * ratio));
    canvas.height = baseCanvas.height = Math.max(1, Math.round(height * ratio));
    baseValid = false;
    return true;
  }

  function paint() {
    if (!hasData) return;
    // Before the observer's first report, read the box once (a layout, but only this once).
    if (!size.width && box.isConnected) resize(box.clientWidth, box.clientHeight);
    const { width, height, ratio } = size;
    if (!width || !height) return; // hidden: drawn when it gets a size
    if (!baseValid) {
      const bctx = baseCanvas.getContext('2d');
      bctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      colours ??= themeColours(canvas);
      bctx.fillStyle = colours.bg;
      bctx.fillRect(0, 0, width, height);
      layers.base(bctx, { width, height }, colours);
      baseValid = true;
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(baseCanvas, 0, 0);
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    layers.top(ctx, { width, height });
    painted = true;
  }

  const observer = new ResizeObserver(([entry]) => {
    const { width, height } = entry.contentRect;
    if (resize(Math.round(width), Math.round(height))) paint();
  });
  observer.observe(box);
  const surface = {
    ctx,
    /** The ranges changed: both layers again. */
    invalidate() {
      hasData = true;
      baseValid = false;
      // A view's first result paints every figure at once; each surface's first paint goes in
      // a task of its own so the page's first draw is several short tasks, not one long one.
      if (painted) return paint();
      firstPaint ??= new Promise((resolve) =>
        setTimeout(() => {
          firstPaint = null;
          paint();
          resolve();
        }, 0),
      );
    },
    /** Resolves once the last update is on the canvas. */
    drawn: () => firstPaint ?? Promise.resolve(),
    /** The theme changed: its colours read again, both layers redrawn. */
    retheme() {
      colours = null;
      baseValid = false;
      paint();
    },
    /** Only the data layer again (the base is reused). */
    repaint() {
      paint();
    },
    get size() {
      return size;
    },
    destroy() {
      observer.disconnect();
      live.delete(surface);
    },
  };
  live.add(surface);
  return surface;
}
