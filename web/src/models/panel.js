// The Models view's hub panel: one button per known model (download → Cache Storage → the
// architecture's runtime), a progress bar with bytes, rate and time left, Cancel, the list of
// stored models with Delete, and why a button cannot load (offline, the page's CSP, no Cache
// Storage). Messages stay beside these controls; the model on show changes only when a load
// succeeds.
import { formatBytes } from '../lm/format.js';
import { el, progressBar, reveal } from '../ui/dom.js';
import { markDrawn } from '../ui/timing.js';
import { deleteStored, freeBytes, listStored, openModelCache, storedFiles } from './cache.js';
import { loadHubConfig } from './config.js';
import { blockedSources, metaPolicies } from './csp.js';
import { HubError } from './hub.js';
import { KNOWN_MODELS } from './known-models.js';
import { obtainModel } from './obtain.js';
import { createRateMeter, progressLine } from './progress.js';
import { runtimeOf } from './runtimes.js';

/**
 * @param {{ parent: HTMLElement, compute: any, channel: string,
 *   lock: { busy: () => boolean, set: (busy: boolean) => void },
 *   cancelLoad: () => void,
 *   onLoaded: (result: any, model: any, from: 'cache' | 'hub') => Promise<void> | void }} o
 */
export function createHubPanel({ parent, compute, channel, lock, cancelLoad, onLoaded }) {
  const ui = buildPanel(parent, (model) => load(model));
  // What the panel knows, read by its sections: the hub config once read ({ hub, fileHosts }),
  // the hub sources the page's CSP refuses, why there is no Cache Storage, the ids of known
  // models stored whole from the current hub, and the current load's phase ('idle' |
  // 'download' | 'load'), its AbortController and the URL the CSP refused during it.
  const state = {
    config: null,
    blocked: [],
    cacheProblem: null,
    complete: new Set(),
    abort: null,
    phase: 'idle',
    violation: null,
  };

  const setError = (message) => {
    ui.error.textContent = message;
    ui.box.classList.toggle('has-error', Boolean(message));
    if (message) reveal(ui.error);
  };
  const refreshButtons = () => showButtons(ui, state, lock.busy());
  const refreshStored = createStoredList(ui, state, { lock, setError, refreshButtons });

  document.addEventListener('securitypolicyviolation', (e) => {
    if (state.phase === 'download' && /^connect-src/.test(e.effectiveDirective ?? e.violatedDirective)) {
      state.violation = e.blockedURI;
    }
  });

  async function load(model) {
    if (lock.busy()) return setError('a checkpoint is still being read: cancel it first');
    lock.set(true);
    setError('');
    ui.note.textContent = '';
    ui.note.classList.remove('warn');
    Object.assign(state, { abort: new AbortController(), violation: null, phase: 'download' });
    refreshButtons();
    for (const b of ui.storedList.querySelectorAll('button')) b.disabled = true;
    ui.progress.hidden = false;
    ui.progress.removeAttribute('value');
    ui.progressText.textContent = `${model.label}: looking in this browser's storage…`;
    ui.cancel.hidden = false;
    const t0 = performance.now();
    try {
      const got = await download(ui, state, model);
      const storedMs = performance.now() - t0;
      Object.assign(state, { phase: 'load', abort: null });
      await refreshStored();
      const r = await readIntoCore(ui, model, got, { compute, channel });
      const totalMs = performance.now() - t0;
      markDrawn('lm-hub', {
        model: model.id,
        from: got.from,
        bytes: got.weightBytes,
        storedMs,
        loadMs: r.loadMs,
        totalMs,
      });
      await onLoaded(r, model, got.from);
    } catch (e) {
      ui.progressText.textContent = '';
      setError(
        e instanceof HubError || !(e instanceof Error) ? String(e.message ?? e) : `${model.label}: ${e.message}`,
      );
    } finally {
      Object.assign(state, { phase: 'idle', abort: null });
      lock.set(false);
      ui.progress.hidden = true;
      ui.cancel.hidden = true;
      await refreshStored();
      refreshButtons();
    }
  }

  ui.cancel.addEventListener('click', () => {
    if (state.phase === 'download') state.abort?.abort();
    else if (state.phase === 'load') cancelLoad();
  });
  addEventListener('online', refreshButtons);
  addEventListener('offline', refreshButtons);

  (async () => {
    await readConfig(ui, state);
    await refreshStored();
    refreshButtons();
    ui.box.dataset.ready = 'true';
  })();

  return { refresh: refreshButtons };
}

// The panel's elements, in the order they show: heading, hub and config lines, one button per
// known model (a click loads it), why some cannot load, progress, cancel, error, note, and the
// stored models' list.
function buildPanel(parent, onLoad) {
  const box = el('div', 'control hub');
  const heading = el('span', 'hub-title', 'Load a trained model');
  const hubLine = el('p', 'lm-hint hub-source', 'hub: reading poslab.config.json…');
  const configNote = el('p', 'lm-hint hub-config-note');
  configNote.setAttribute('role', 'note');
  const buttons = el('div', 'hub-buttons');
  const byId = new Map();
  for (const m of KNOWN_MODELS) {
    const b = el('button', 'hub-load');
    b.type = 'button';
    b.dataset.model = m.id;
    b.append(el('span', 'hub-load-label', `Load ${m.label}`), el('span', 'hub-load-size'));
    b.setAttribute('aria-describedby', 'c-hub-why c-hub-error');
    b.addEventListener('click', () => onLoad(m));
    buttons.append(b);
    byId.set(m.id, b);
  }
  const why = el('p', 'lm-hint hub-why');
  why.id = 'c-hub-why';
  why.setAttribute('role', 'status');
  const { bar: progress, text: progressText } = progressBar('hub-progress', 'model download');
  const cancel = el('button', 'export hub-cancel', 'cancel download');
  cancel.type = 'button';
  cancel.hidden = true;
  const error = el('span', 'control-error hub-error');
  error.id = 'c-hub-error';
  error.setAttribute('role', 'status');
  const note = el('p', 'hub-note');
  note.setAttribute('role', 'status');
  const storedTitle = el('span', 'hub-title', 'Stored models');
  const storedList = el('ul', 'hub-stored');
  const storedHint = el('p', 'lm-hint hub-storage');
  box.append(heading, hubLine, configNote, buttons, why, progress, progressText, cancel, error, note);
  box.append(storedTitle, storedList, storedHint);
  parent.append(box);
  return { box, hubLine, configNote, byId, why, progress, progressText, cancel, error, note, storedList, storedHint };
}

// The hub config (poslab.config.json), the sources the page's CSP refuses, and whether this
// browser has Cache Storage.
async function readConfig(ui, state) {
  const { config, note } = await loadHubConfig();
  state.config = config;
  ui.configNote.textContent = note ?? '';
  ui.hubLine.textContent = `hub: ${config.hub} (set in poslab.config.json)`;
  state.blocked = blockedSources(metaPolicies(), config, location.origin);
  try {
    await openModelCache();
  } catch (e) {
    state.cacheProblem = e.message;
  }
}

/** Buttons, their sizes and the one line saying why some cannot load. */
function showButtons({ byId, why }, { config, cacheProblem, blocked, complete }, busy) {
  const online = navigator.onLine;
  let reason = '';
  if (!config) reason = 'reading poslab.config.json…';
  else if (cacheProblem) reason = `Cannot store models: ${cacheProblem}.`;
  else if (blocked.length) {
    reason =
      `This page's Content-Security-Policy does not allow connecting to ${blocked.join(', ')}, which poslab.config.json names: ` +
      'rebuild the page with this poslab.config.json (npm run build) or add them to connect-src in index.html. Stored models still load.';
  } else if (!online)
    reason = 'Offline: models not stored in this browser cannot be downloaded now; stored ones still load.';
  for (const m of KNOWN_MODELS) {
    const b = byId.get(m.id);
    const stored = complete.has(m.id);
    const canFetch = config && !cacheProblem && !blocked.length && online;
    b.disabled = busy || !config || Boolean(cacheProblem) || (!stored && !canFetch);
    b.classList.toggle('stored', stored);
    b.querySelector('.hub-load-size').textContent = stored ? 'stored' : `about ${formatBytes(m.approxBytes)}`;
    b.title = stored
      ? `${m.repo}: stored in this browser, loads without downloading`
      : `${m.repo}: downloads about ${formatBytes(m.approxBytes)} from ${config?.hub ?? 'the hub'} once, then keeps it in this browser`;
  }
  why.textContent = reason;
}

// The stored models' list, each with Delete, and how much more may be stored. Its refresh
// also learns which known models are stored whole (state.complete) and redraws the buttons.
function createStoredList(ui, state, { lock, setError, refreshButtons }) {
  const { storedList, storedHint, note } = ui;
  // Load calls this twice (stored, then finally): the list is rebuilt off-page and swapped in
  // whole, and only by the latest call, so it never shows empty or doubled between the two.
  let storedRefreshes = 0;
  async function refreshStored() {
    const mine = ++storedRefreshes;
    if (state.cacheProblem || !state.config) return storedList.replaceChildren();
    let stored;
    try {
      const cache = await openModelCache();
      stored = await listStored(cache);
    } catch (e) {
      if (mine !== storedRefreshes) return;
      state.cacheProblem = e.message;
      storedList.replaceChildren();
      refreshButtons();
      return;
    }
    const free = await freeBytes();
    if (mine !== storedRefreshes) return;
    const hub = state.config.hub;
    state.complete = new Set(stored.filter((s) => s.complete && s.hub === hub).map((s) => s.model.id));
    const items = stored.map((s) => storedItem(s, hub, lock.busy(), remove));
    if (!stored.length) items.push(el('li', 'hub-stored-none', 'none yet'));
    storedList.replaceChildren(...items);
    storedHint.textContent =
      `Kept in this browser's Cache Storage${free === null ? '' : ` (${formatBytes(Math.max(0, free))} more may be stored)`}; ` +
      'the browser may clear it under storage pressure.';
    refreshButtons();
  }

  async function remove(s, name) {
    setError('');
    try {
      await deleteStored(await openModelCache(), s.hub, s.repo);
      note.textContent = `${name}: deleted from this browser (${formatBytes(s.bytes)} freed); the model on show stays until replaced.`;
    } catch (e) {
      setError(`could not delete ${name}: ${e.message}`);
    }
    await refreshStored();
  }

  return refreshStored;
}

// One stored model's line: its name, size, what is missing and where from, and Delete.
function storedItem(s, hub, busy, remove) {
  const li = el('li', 'hub-stored-item');
  li.dataset.repo = s.repo;
  const name = s.model ? `${s.model.label} (${s.repo})` : s.repo;
  // A sharded model's file count is known only from its index: say what is there.
  const incomplete = s.complete ? '' : ` · incomplete: ${s.files.length} file${s.files.length === 1 ? '' : 's'} stored`;
  const from = s.hub === hub ? '' : ` · from ${s.hub}`;
  li.append(el('span', 'hub-stored-name', `${name} · ${formatBytes(s.bytes)}${incomplete}${from}`));
  const del = el('button', 'export hub-delete', 'delete');
  del.type = 'button';
  del.setAttribute('aria-label', `delete ${name} from this browser`);
  del.disabled = busy;
  del.addEventListener('click', () => remove(s, name));
  li.append(del);
  return li;
}

// The model's files from Cache Storage, or from the hub into it, with bytes, rate and time left
// per file; the CSP's refusal of a file host (state.violation) becomes the error.
async function download({ progress, progressText }, state, model) {
  const { hub } = state.config;
  const meter = createRateMeter();
  let lastFile = null;
  const cache = await openModelCache();
  const { missing } = await storedFiles(cache, hub, model);
  if (missing.length) progressText.textContent = `${model.label}: asking ${hub} for ${model.repo}…`;
  return obtainModel({
    model,
    hub,
    cache,
    signal: state.abort.signal,
    freeBytes,
    blockedBy: () => state.violation,
    onProgress: ({ file, received, expected }) => {
      if (file !== lastFile) {
        lastFile = file;
        meter.reset();
      }
      meter.sample(received);
      if (expected) progress.value = Math.min(1, received / expected);
      else progress.removeAttribute('value');
      progressText.textContent = progressLine({ file, received, expected, rate: meter.rate() });
    },
  });
}

// The downloaded or stored files read into the architecture's runtime on the worker; resolves
// to the runtime's result, and says where the model came from and how long it took.
async function readIntoCore({ progress, progressText }, model, got, { compute, channel }) {
  const runtime = runtimeOf(model.architecture);
  const whereFrom =
    got.from === 'cache'
      ? "from this browser's storage"
      : `downloaded ${formatBytes(got.downloaded)} in ${(got.downloadMs / 1000).toFixed(1)} s and stored`;
  progress.value = 0;
  progressText.textContent = `${model.label}: reading ${formatBytes(got.weightBytes)} into the ${runtime.name} core…`;
  const r = await runtime.load({
    compute,
    channel,
    weights: got.weights,
    shards: got.shards,
    config: got.config,
    texts: got.texts,
    onProgress: (x) => {
      if (x.phase !== 'load') return;
      progress.value = x.expected ? x.received / x.expected : 1;
      progressText.textContent = `${model.label}: ${formatBytes(x.received)} of ${formatBytes(x.expected)} read into the core`;
    },
  });
  if (r === null) throw new Error(`${model.label}: loading was superseded`);
  progressText.textContent = `${model.label}: ${whereFrom}; loaded in ${(r.loadMs / 1000).toFixed(1)} s`;
  return r;
}
