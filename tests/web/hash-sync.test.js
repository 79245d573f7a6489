// syncHash writes the address bar once a burst of changes settles (a slider drag would pass the
// browsers' cap on history updates, and each write costs the frame milliseconds), flushes a
// pending write when the page is left, and never lets a pending write undo a link read in.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaults } from '../../web/src/state/registry.js';
import { createStore } from '../../web/src/state/store.js';
import { WRITE_DELAY_MS, syncHash } from '../../web/src/state/url.js';

/** A window and document with just what syncHash touches; `fire` dispatches their events. */
function fakePage(hash = '') {
  const listeners = new Map();
  const on = (type, fn) => listeners.set(type, [...(listeners.get(type) ?? []), fn]);
  const location = { hash, pathname: '/', search: '' };
  const writes = [];
  const window = {
    location,
    addEventListener: on,
    history: {
      replaceState(_state, _title, url) {
        writes.push(url);
        location.hash = url.includes('#') ? url.slice(url.indexOf('#')) : '';
      },
    },
  };
  const document = { visibilityState: 'visible', addEventListener: on };
  const fire = (type) => (listeners.get(type) ?? []).forEach((fn) => fn());
  return { window, document, location, writes, fire };
}

describe('syncHash', () => {
  let page;
  let store;
  beforeEach(() => {
    vi.useFakeTimers();
    page = fakePage();
    vi.stubGlobal('window', page.window);
    vi.stubGlobal('document', page.document);
    store = createStore(defaults());
    syncHash(store, () => {});
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('writes a burst of changes once, with the last value, after the settings stay still', () => {
    for (let L = 100; L < 400; L++) {
      store.set({ 'enc.L': L }, { source: 'control' });
      vi.advanceTimersByTime(16); // one step per frame: never still for WRITE_DELAY_MS
    }
    expect(page.writes).toEqual([]);
    vi.advanceTimersByTime(WRITE_DELAY_MS);
    expect(page.writes).toHaveLength(1);
    expect(new URLSearchParams(page.location.hash.slice(1)).get('enc.L')).toBe('399');
  });

  it('flushes a pending write when the page is hidden or left', () => {
    store.set({ 'enc.L': 300 }, { source: 'control' });
    page.document.visibilityState = 'hidden';
    page.fire('visibilitychange');
    expect(page.writes).toHaveLength(1);
    store.set({ 'enc.L': 301 }, { source: 'control' });
    page.fire('pagehide');
    expect(page.writes).toHaveLength(2);
    expect(page.location.hash).toContain('enc.L=301');
    vi.advanceTimersByTime(WRITE_DELAY_MS); // nothing left to write
    expect(page.writes).toHaveLength(2);
  });

  it('drops a pending write when a link is read in, so the link is not undone', () => {
    store.set({ 'enc.L': 300 }, { source: 'control' });
    page.location.hash = '#enc.L=77';
    page.fire('hashchange');
    expect(store.get()['enc.L']).toBe(77);
    vi.advanceTimersByTime(WRITE_DELAY_MS * 2);
    expect(page.writes).toEqual([]);
    expect(page.location.hash).toBe('#enc.L=77');
  });
});
