// Keeps location.hash and the store in step. Control changes replace the history entry (a
// slider drag must not fill the back button); a pasted or clicked link is read back in.
import { readLink, serialiseHash } from './url.js';

/**
 * @param {ReturnType<import('./store.js').createStore>} store
 * @param {(problems: string[]) => void} report shows what part of a link was ignored
 */
export function syncHash(store, report) {
  let writing = false;

  const read = () => {
    const { state, problems } = readLink(window.location.hash);
    report(problems);
    store.set(state, { source: 'hash' });
  };

  store.subscribe((state, _changed, meta) => {
    if (meta.source === 'hash') return;
    const hash = serialiseHash(state);
    const url = `${window.location.pathname}${window.location.search}${hash ? `#${hash}` : ''}`;
    writing = true;
    window.history.replaceState(null, '', url);
    writing = false;
  });

  window.addEventListener('hashchange', () => {
    if (!writing) read();
  });
  read();
}
