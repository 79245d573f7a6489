// The Models view's hub panel: one button per known model (download → Cache Storage → the
// architecture's runtime), a progress bar with bytes, rate and time left, Cancel, the list of
// stored models with Delete, and why a button cannot load (offline, the page's CSP, no Cache
// Storage). Messages stay beside these controls; the model on show changes only when a load
// succeeds.
import { formatBytes } from '../lm/format.js';
import { el, progressBar } from '../ui/dom.js';
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
    b.addEventListener('click', () => load(m));
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

  let config = null; // { hub, fileHosts } once read
  let blocked = []; // hub sources the page's CSP refuses
  let cacheProblem = null; // why there is no Cache Storage
  let complete = new Set(); // ids of known models stored whole from the current hub
  let abort = null;
  let phase = 'idle'; // 'download' | 'load'
  let violation = null; // the URL the CSP refused during the current download

  const setError = (message) => {
    error.textContent = message;
    box.classList.toggle('has-error', Boolean(message));
  };

  document.addEventListener('securitypolicyviolation', (e) => {
    if (phase === 'download' && /^connect-src/.test(e.effectiveDirective ?? e.violatedDirective)) {
      violation = e.blockedURI;
    }
  });

  /** Buttons, their sizes and the one line saying why some cannot load. */
  function refreshButtons() {
    const online = navigator.onLine;
    const busy = lock.busy();
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

  // Load calls this twice (stored, then finally): the list is rebuilt off-page and swapped in
  // whole, and only by the latest call, so it never shows empty or doubled between the two.
  let storedRefreshes = 0;
  async function refreshStored() {
    const mine = ++storedRefreshes;
    if (cacheProblem || !config) return storedList.replaceChildren();
    let stored;
    try {
      const cache = await openModelCache();
      stored = await listStored(cache);
    } catch (e) {
      if (mine !== storedRefreshes) return;
      cacheProblem = e.message;
      storedList.replaceChildren();
      refreshButtons();
      return;
    }
    const free = await freeBytes();
    if (mine !== storedRefreshes) return;
    complete = new Set(stored.filter((s) => s.complete && s.hub === config.hub).map((s) => s.model.id));
    const items = [];
    for (const s of stored) {
      const li = el('li', 'hub-stored-item');
      li.dataset.repo = s.repo;
      const name = s.model ? `${s.model.label} (${s.repo})` : s.repo;
      // A sharded model's file count is known only from its index: say what is there.
      const state = s.complete ? '' : ` · incomplete: ${s.files.length} file${s.files.length === 1 ? '' : 's'} stored`;
      const from = s.hub === config.hub ? '' : ` · from ${s.hub}`;
      li.append(el('span', 'hub-stored-name', `${name} · ${formatBytes(s.bytes)}${state}${from}`));
      const del = el('button', 'export hub-delete', 'delete');
      del.type = 'button';
      del.setAttribute('aria-label', `delete ${name} from this browser`);
      del.disabled = lock.busy();
      del.addEventListener('click', async () => {
        setError('');
        try {
          await deleteStored(await openModelCache(), s.hub, s.repo);
          note.textContent = `${name}: deleted from this browser (${formatBytes(s.bytes)} freed); the model on show stays until replaced.`;
        } catch (e) {
          setError(`could not delete ${name}: ${e.message}`);
        }
        await refreshStored();
      });
      li.append(del);
      items.push(li);
    }
    if (!stored.length) items.push(el('li', 'hub-stored-none', 'none yet'));
    storedList.replaceChildren(...items);
    storedHint.textContent =
      `Kept in this browser's Cache Storage${free === null ? '' : ` (${formatBytes(Math.max(0, free))} more may be stored)`}; ` +
      'the browser may clear it under storage pressure.';
    refreshButtons();
  }

  async function load(model) {
    if (lock.busy()) return setError('a checkpoint is still being read: cancel it first');
    lock.set(true);
    setError('');
    note.textContent = '';
    note.classList.remove('warn');
    abort = new AbortController();
    violation = null;
    phase = 'download';
    refreshButtons();
    for (const b of storedList.querySelectorAll('button')) b.disabled = true;
    progress.hidden = false;
    progress.removeAttribute('value');
    progressText.textContent = `${model.label}: looking in this browser's storage…`;
    cancel.hidden = false;
    const meter = createRateMeter();
    let lastFile = null;
    const t0 = performance.now();
    try {
      const cache = await openModelCache();
      const { missing } = await storedFiles(cache, config.hub, model);
      if (missing.length) progressText.textContent = `${model.label}: asking ${config.hub} for ${model.repo}…`;
      const got = await obtainModel({
        model,
        hub: config.hub,
        cache,
        signal: abort.signal,
        freeBytes,
        blockedBy: () => violation,
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
      const storedMs = performance.now() - t0;
      phase = 'load';
      abort = null;
      await refreshStored();
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
      const totalMs = performance.now() - t0;
      progressText.textContent = `${model.label}: ${whereFrom}; loaded in ${(r.loadMs / 1000).toFixed(1)} s`;
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
      progressText.textContent = '';
      setError(
        e instanceof HubError || !(e instanceof Error) ? String(e.message ?? e) : `${model.label}: ${e.message}`,
      );
    } finally {
      phase = 'idle';
      abort = null;
      lock.set(false);
      progress.hidden = true;
      cancel.hidden = true;
      await refreshStored();
      refreshButtons();
    }
  }

  cancel.addEventListener('click', () => {
    if (phase === 'download') abort?.abort();
    else if (phase === 'load') cancelLoad();
  });
  addEventListener('online', refreshButtons);
  addEventListener('offline', refreshButtons);

  (async () => {
    const { config: c, note: n } = await loadHubConfig();
    config = c;
    configNote.textContent = n ?? '';
    hubLine.textContent = `hub: ${config.hub} (set in poslab.config.json)`;
    blocked = blockedSources(metaPolicies(), config, location.origin);
    try {
      await openModelCache();
    } catch (e) {
      cacheProblem = e.message;
    }
    await refreshStored();
    refreshButtons();
    box.dataset.ready = 'true';
  })();

  return { refresh: refreshButtons };
}
