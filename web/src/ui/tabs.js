// The view tabs: a tablist of buttons (arrow keys move between them, as the WAI-ARIA tabs
// pattern has it), one per view of the registry, numbered in its order. Choosing a tab sets
// `view` in the store; the URL follows.

/**
 * @param {HTMLElement} nav
 * @param {import('../state/registry.js').ViewDecl[]} registry the views, in tab order
 */
export function renderTabs(nav, registry, store) {
  nav.setAttribute('role', 'tablist');
  nav.setAttribute('aria-label', 'Views');
  const views = registry.map((v) => v.name);
  const buttons = registry.map(({ name, title }, i) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.id = `tab-${name}`;
    b.setAttribute('role', 'tab');
    b.setAttribute('aria-controls', `view-${name}`);
    b.textContent = `${i + 1} · ${title}`;
    b.addEventListener('click', () => store.set({ view: name }, { source: 'control' }));
    b.addEventListener('keydown', (e) => {
      const i = views.indexOf(name);
      const j =
        e.key === 'ArrowRight'
          ? (i + 1) % views.length
          : e.key === 'ArrowLeft'
            ? (i + views.length - 1) % views.length
            : -1;
      if (j < 0) return;
      store.set({ view: views[j] }, { source: 'control' });
      buttons[j].focus();
      e.preventDefault();
    });
    nav.append(b);
    return b;
  });
  return {
    select(name) {
      for (const b of buttons) {
        const on = b.id === `tab-${name}`;
        b.setAttribute('aria-selected', String(on));
        b.tabIndex = on ? 0 : -1;
      }
    },
  };
}
