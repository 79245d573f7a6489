// Finished runs in IndexedDB, keyed by their whole configuration (seed included), so a reload
// of the same setting shows them again without training. Failures to open the database
// (private windows, no IndexedDB) make the cache a no-op, never an error.
const DB = 'poslab-lab';
const STORE = 'runs';

let opening = null;
function open() {
  opening ??= new Promise((resolve) => {
    if (typeof indexedDB === 'undefined') return resolve(null);
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => resolve(null);
  });
  return opening;
}

/** The cache key of a run's configuration: its keys sorted, so order never matters. */
export const runKey = (config) =>
  JSON.stringify(Object.fromEntries(Object.entries(config).sort(([a], [b]) => a.localeCompare(b))));

function transact(mode, body) {
  return open().then(
    (db) =>
      db &&
      new Promise((resolve) => {
        const tx = db.transaction(STORE, mode);
        const request = body(tx.objectStore(STORE));
        tx.oncomplete = () => resolve(request.result);
        tx.onerror = tx.onabort = () => resolve(undefined);
      }),
  );
}

export const getRun = (config) => transact('readonly', (s) => s.get(runKey(config))).then((v) => v ?? null);
export const putRun = (config, value) => transact('readwrite', (s) => s.put(value, runKey(config)));
