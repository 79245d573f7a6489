// The view tabs: a tablist of buttons (arrow keys move between them, as the WAI-ARIA tabs
// pattern has it). Choosing a tab sets `view` in the store; the URL follows.

const LABELS = {
  encodings: '1 · Encodings',
  similarity: '2 · Similarity',
  extrapolation: '3 · Out-of-scope lengths',
  offset: '4 · Offset matrix',
  attention: '5 · Attention & masks',
  gallery: '6 · Seed gallery',
  gpt2: '7 · GPT-2',
};

export function renderTabs(nav, views, store) {
  nav.setAttribute('role', 'tablist');
  nav.setAttribute('aria-label', 'Views');
  const buttons = views.map((name) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.id = `tab-${name}`;
    b.setAttribute('role', 'tab');
    b.setAttribute('aria-controls', `view-${name}`);
    b.textContent = LABELS[name];
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
