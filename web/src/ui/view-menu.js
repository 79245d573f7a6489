// The views as one menu, for phones (the stylesheet shows it instead of the tabs at the phone
// width): a native select with the registry's groups as option groups, so the platform's own
// picker lists every view with nothing cut off. Choosing sets `view` in the store.
import { groupedViews } from './tabs.js';

/**
 * @param {HTMLElement} parent
 * @param {import('../state/registry.js').ViewDecl[]} registry
 */
export function renderViewMenu(parent, registry, store) {
  const label = document.createElement('label');
  label.className = 'view-menu';
  label.textContent = 'View ';
  const select = document.createElement('select');
  select.id = 'view-menu';
  for (const group of groupedViews(registry)) {
    const options = document.createElement('optgroup');
    options.label = group.title;
    for (const { name, title } of group.views) {
      const o = document.createElement('option');
      o.value = name;
      o.textContent = title;
      options.append(o);
    }
    select.append(options);
  }
  select.addEventListener('change', () => store.set({ view: select.value }, { source: 'control' }));
  label.append(select);
  parent.append(label);
  return {
    select(name) {
      select.value = name;
    },
  };
}
