// Puts a view's lead sentence (content/leads.js) under its title, first thing in the view: the
// title from the registry where the view draws none of its own (its formula comes first).
// While a view's code loads, the same title and lead stand in its place (pendingHead), so the
// first thing a reader gets paints with the page, not after the view's chunk.
// (No ui/dom.js helper: importing it here would split it out of the views' shared chunk.)

/**
 * @param {HTMLElement} section the view's <section>
 * @param {{ title: string }} view its registry entry
 * @param {string | undefined} lead
 * @param {HTMLElement | null} [shownLead] the lead pendingHead painted: moved in rather than
 *   painted again, so the page's largest early paint stays its first one (LCP).
 */
export function addLead(section, view, lead, shownLead = null) {
  const intro = section.querySelector('.view-intro');
  if (!intro || intro.querySelector('.lead')) return;
  let heading = intro.querySelector('h2');
  if (!heading) {
    heading = document.createElement('h2');
    heading.textContent = view.title;
    intro.prepend(heading);
  }
  if (!lead) return;
  const p = shownLead ?? document.createElement('p');
  p.className = 'lead';
  p.textContent = lead;
  heading.after(p);
}

/** The title and lead of a view whose code is loading, at the top of `main`; remove() it once built. */
export function pendingHead(main, view, lead) {
  const head = document.createElement('div');
  head.className = 'view-intro view-pending';
  const heading = document.createElement('h2');
  heading.textContent = view.title;
  head.append(heading);
  if (lead) {
    const p = document.createElement('p');
    p.className = 'lead';
    p.textContent = lead;
    head.append(p);
  }
  main.prepend(head);
  return head;
}
