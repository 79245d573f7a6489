// The worker client: one job in flight per channel, newer requests replace the waiting one.
import { describe, expect, it } from 'vitest';
import { createComputeClient } from '../../web/src/worker/client.js';

// A stand-in worker that answers when told to.
function fakeWorker() {
  const listeners = {};
  const sent = [];
  return {
    sent,
    addEventListener: (type, fn) => (listeners[type] = fn),
    postMessage: (msg) => sent.push(msg),
    reply: (id, result) => listeners.message({ data: { type: 'result', id, result } }),
    fail: (id, message) => listeners.message({ data: { type: 'error', id, message } }),
    fatal: (message) => listeners.message({ data: { type: 'fatal', message } }),
    send: (data) => listeners.message({ data }),
  };
}

// A compute client whose only worker is one fake worker `w`: { w, client }.
function fakeClient(options) {
  const w = fakeWorker();
  return { w, client: createComputeClient(() => w, options) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('compute client', () => {
  it('Client.CoalescesRequestsWhileBusy', async () => {
    const { w, client } = fakeClient();
    const a = client.request('enc', 'encodings', { L: 1 });
    const b = client.request('enc', 'encodings', { L: 2 });
    const c = client.request('enc', 'encodings', { L: 3 });
    expect(w.sent.map((m) => m.params.L)).toEqual([1]);
    expect(await b).toBeNull(); // replaced by c before it was sent
    w.reply(w.sent[0].id, 'one');
    expect(await a).toBe('one');
    await tick();
    expect(w.sent.map((m) => m.params.L)).toEqual([1, 3]);
    w.reply(w.sent[1].id, 'three');
    expect(await c).toBe('three');
  });

  it('Client.ChannelsAreIndependentAndErrorsReject', async () => {
    const { w, client } = fakeClient();
    const a = client.request('enc', 'encodings', {});
    const b = client.request('att', 'attention', {});
    expect(w.sent).toHaveLength(2);
    w.fail(w.sent[1].id, 'D must be even');
    await expect(b).rejects.toThrow('D must be even');
    w.reply(w.sent[0].id, 'ok');
    expect(await a).toBe('ok');
  });

  it('Client.ErrorsKeepTheirField', async () => {
    const { w, client } = fakeClient();
    const a = client.request('ext', 'extrapolation', {});
    const message = 'llama3 needs 0 < low_freq_factor <= high_freq_factor';
    w.send({ type: 'error', id: w.sent[0].id, message, field: 'lowFreqFactor' });
    await expect(a).rejects.toMatchObject({ message, field: 'lowFreqFactor' });
    const b = client.request('ext', 'extrapolation', {});
    w.fail(w.sent[1].id, 'out of memory');
    await expect(b).rejects.toMatchObject({ message: 'out of memory', field: undefined });
  });

  it('Client.FatalRejectsEverything', async () => {
    let reported = null;
    const { w, client } = fakeClient({ onFatal: (m) => (reported = m) });
    const a = client.request('enc', 'encodings', {});
    w.fatal('no wasm');
    await expect(a).rejects.toThrow('no wasm');
    await expect(client.request('enc', 'encodings', {})).rejects.toThrow('no wasm');
    expect(reported).toBe('no wasm');
  });
});

// Progress messages of a long job (reading a checkpoint) reach the request that asked.
describe('compute client progress', () => {
  it('Client.ProgressGoesToItsRequestUntilTheResult', async () => {
    const { w, client } = fakeClient();
    const seen = [];
    const other = [];
    const a = client.request('lm-load', 'lmLoad', { n: 1 }, { onProgress: (x) => seen.push(x) });
    const b = client.request('lm', 'lm', {}, { onProgress: (x) => other.push(x) });
    const [ida, idb] = w.sent.map((m) => m.id);
    w.send({ type: 'progress', id: ida, data: { received: 1, expected: 4 } });
    w.send({ type: 'progress', id: ida, data: { received: 4, expected: 4 } });
    w.send({ type: 'progress', id: idb, data: { phase: 'create' } });
    w.send({ type: 'result', id: ida, result: 'loaded' });
    w.send({ type: 'progress', id: ida, data: { late: true } }); // after the result: dropped
    expect(await a).toBe('loaded');
    expect(seen).toEqual([
      { received: 1, expected: 4 },
      { received: 4, expected: 4 },
    ]);
    expect(other).toEqual([{ phase: 'create' }]);
    w.send({ type: 'result', id: idb, result: 'ok' });
    expect(await b).toBe('ok');
  });

  it('Client.RequestWithoutProgressIgnoresIt', async () => {
    const { w, client } = fakeClient();
    const a = client.request('enc', 'encodings', {});
    w.send({ type: 'progress', id: w.sent[0].id, data: 1 });
    w.send({ type: 'result', id: w.sent[0].id, result: 2 });
    expect(await a).toBe(2);
  });
});
