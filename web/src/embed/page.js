// Entry of embed.html: one plot from the hash (the playground's state plus plot=, controls=,
// <key>_hide=), sized to the iframe's width, its height posted to the parent page so the
// parent's resize script (public/embed/resize.js) can fit the iframe to it.
import '../styles/main.css';
import './embed.css';
import { applyTheme } from '../ui/theme.js';
import { figureCompute } from './compute.js';
import { parseEmbedHash } from './params.js';
import { mountEmbed } from './render.js';

const figure = mountEmbed(document.getElementById('figure'), figureCompute(), {
  appBase: new URL('./', window.location.href),
});

// Only a height goes out: nothing secret, so any parent may read it ('*'); the parent
// checks where it came from before acting on it.
let posted = 0;
const postHeight = () => {
  const height = Math.ceil(figure.el.getBoundingClientRect().height);
  if (height === posted || window.parent === window) return;
  posted = height;
  window.parent.postMessage({ type: 'poslab:height', height }, '*');
};
new ResizeObserver(postHeight).observe(figure.el);

const show = () => {
  const settings = parseEmbedHash(window.location.hash);
  applyTheme(settings.state.theme);
  figure.render(settings);
};
window.addEventListener('hashchange', show);
show();
