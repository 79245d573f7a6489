// The view tabs: one tablist (the WAI-ARIA tabs pattern: arrow keys, Home and End move between
// the tabs and choose, only the chosen tab is in the Tab order), its tabs clustered under the
// registry's groups — what a person came to do — so that twelve or more views wrap onto
// labelled rows instead of running off the screen. Choosing a tab sets `view` in the store;
// the URL follows. On a phone the same groups are one menu instead (ui/view-menu.js).
import { GROUPS } from '../state/registry.js';

/**
 * The registry's views by group, in GROUPS' order, each group's views in registry order.
 * @param {import('../state/registry.js').ViewDecl[]} registry
 * @returns {{ name: string, title: string, views: import('../state/registry.js').ViewDecl[] }[]}
 */
export function groupedViews(registry, groups = GROUPS) {
  const orphans = registry.filter((v) => !groups.some((g) => g.name === v.group));
  if (orphans.length) throw new Error(`views in no group: ${orphans.map((v) => v.name).join(', ')}`);
  return groups.map((g) => ({ ...g, views: registry.filter((v) => v.group === g.name) })).filter((g) => g.views.length);
}

/** Where a key press moves the focus among n tabs from tab i (-1: the key is not ours). */
export function tabKeyTarget(key, i, n) {
  if (key === 'ArrowRight') return (i + 1) % n;
  if (key === 'ArrowLeft') return (i + n - 1) % n;
  if (key === 'Home') return 0;
  if (key === 'End') return n - 1;
  return -1;
}

/**
 * @param {HTMLElement} nav
 * @param {import('../state/registry.js').ViewDecl[]} registry the views
 */
export function renderTabs(nav, registry, store) {
  nav.setAttribute('role', 'tablist');
  nav.setAttribute('aria-label', 'Views');
  const buttons = [];
  for (const group of groupedViews(registry)) {
    // The cluster and its label are layout only: the tablist's accessible children are the tabs.
    const cluster = document.createElement('div');
    cluster.className = 'tab-group';
    cluster.setAttribute('role', 'none');
    const label = document.createElement('span');
    label.className = 'tab-group-label';
    label.setAttribute('aria-hidden', 'true');
    label.textContent = group.title;
    cluster.append(label);
    for (const { name, title } of group.views) {
      const b = document.createElement('button');
      b.type = 'button';
      b.id = `tab-${name}`;
      b.dataset.view = name;
      b.setAttribute('role', 'tab');
      b.setAttribute('aria-controls', `view-${name}`);
      b.textContent = title;
      // The group travels with the name for a screen reader, which skips the hidden label.
      if (group.title !== title) b.setAttribute('aria-description', group.title);
      b.addEventListener('click', () => store.set({ view: name }, { source: 'control' }));
      cluster.append(b);
      buttons.push(b);
    }
    nav.append(cluster);
  }
  nav.addEventListener('keydown', (e) => {
    const i = buttons.indexOf(/** @type {any} */ (e.target));
    const j = i < 0 ? -1 : tabKeyTarget(e.key, i, buttons.length);
    if (j < 0) return;
    store.set({ view: buttons[j].dataset.view }, { source: 'control' });
    buttons[j].focus();
    e.preventDefault();
  });
  return {
    select(name) {
      for (const b of buttons) {
        const on = b.dataset.view === name;
        b.setAttribute('aria-selected', String(on));
        b.tabIndex = on ? 0 : -1;
      }
    },
  };
}
