// A view's primary control (the registry's `primary`: what a person came to pick or press)
// comes before its figures on narrow screens, wherever the view built it (in the folded
// settings, under the charts); on wider screens it stays where the view put it.

/** Screens this narrow get the one-column phone layout (styles/main.css uses the same width). */
export const NARROW = '(max-width: 760px)';

/**
 * Moves the elements of `section` that match `selector` into a `.view-primary` slot (ordered
 * before the plots by the CSS) while NARROW matches, and back to their places when it stops.
 * @param {HTMLElement} section the view's section
 * @param {string | undefined} selector the registry's `primary` (none: nothing to move)
 */
export function placePrimary(section, selector) {
  const media = selector && window.matchMedia?.(NARROW);
  if (!media) return;
  const moved = [...section.querySelectorAll(selector)].map((node) => {
    const home = document.createComment('primary control');
    node.before(home);
    node.dataset.primary = '';
    return { node, home };
  });
  // After the intro in the DOM too, so the keyboard reaches it where the eye does.
  const slot = document.createElement('div');
  slot.className = 'view-primary';
  const intro = section.querySelector(':scope > .view-intro');
  if (intro) intro.after(slot);
  else section.prepend(slot);
  const place = () => {
    for (const { node, home } of moved) {
      if (media.matches) slot.append(node);
      else home.after(node);
    }
  };
  place();
  media.addEventListener?.('change', place);
}
