// The per-view job scheduler: each channel runs on a worker of its own, made on first use; a
// newer request drops the channel's queued job and cancels the running one by terminating
// that channel's worker (the cancelled request resolves to null, never rejects); other
// channels never wait. Channels named to share a worker (GPT-2's model) are never cancelled.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createComputeClient } from '../../web/src/worker/client.js';

// Fake workers, one per makeWorker call, each answering when told to.
function fakeWorkers() {
  const made = [];
  const makeWorker = (name) => {
    const listeners = {};
    const w = {
      name,
      sent: [],
      terminated: false,
      addEventListener: (type, fn) => (listeners[type] = fn),
      postMessage: (msg) => w.sent.push(msg),
      terminate: () => (w.terminated = true),
      reply: (id, result) => listeners.message?.({ data: { type: 'result', id, result } }),
      fail: (message) => listeners.error?.({ message }),
    };
    made.push(w);
    return w;
  };
  return { made, makeWorker };
}

const settled = async (promise) => {
  const marker = Symbol('pending');
  const value = await Promise.race([promise, new Promise((r) => setTimeout(() => r(marker), 20))]);
  return value === marker ? 'pending' : value;
};

afterEach(() => vi.useRealTimers());

describe('per-view scheduler', () => {
  it('Scheduler.MakesWorkersLazilyOnePerChannel', async () => {
    const { made, makeWorker } = fakeWorkers();
    const client = createComputeClient(makeWorker);
    expect(made).toHaveLength(0); // nothing starts before a view asks
    client.request('sim', 'similarity', { L: 1 });
    client.request('enc', 'encodings', { L: 2 });
    expect(made.map((w) => w.name)).toEqual(['sim', 'enc']);
    expect(made[0].sent.map((m) => m.job)).toEqual(['similarity']);
    expect(made[1].sent.map((m) => m.job)).toEqual(['encodings']);
  });

  it('Scheduler.NewerRequestTerminatesTheRunningJobsWorker', async () => {
    const { made, makeWorker } = fakeWorkers();
    const client = createComputeClient(makeWorker, { graceMs: 0 });
    const a = client.request('sim', 'similarity', { L: 4096 });
    const b = client.request('sim', 'similarity', { L: 64 });
    expect(made[0].terminated).toBe(true);
    expect(await settled(a)).toBeNull(); // superseded: null, never an error
    expect(made).toHaveLength(2);
    expect(made[1].sent.map((m) => m.params.L)).toEqual([64]);
    made[0].reply(made[0].sent[0].id, 'late'); // a dead worker's last words are ignored
    made[1].reply(made[1].sent[0].id, 'small');
    expect(await b).toBe('small');
  });

  it('Scheduler.QueuedJobIsDroppedAndTheRunningOneCancelledAfterItsGrace', async () => {
    vi.useFakeTimers();
    const { made, makeWorker } = fakeWorkers();
    const client = createComputeClient(makeWorker, { graceMs: 1000 });
    const a = client.request('sim', 'similarity', { L: 1 });
    const b = client.request('sim', 'similarity', { L: 2 });
    const c = client.request('sim', 'similarity', { L: 3 });
    expect(await b).toBeNull(); // queued, then dropped for c
    expect(made[0].terminated).toBe(false); // a young job may finish
    vi.advanceTimersByTime(1000);
    expect(made[0].terminated).toBe(true);
    expect(await a).toBeNull();
    expect(made[1].sent.map((m) => m.params.L)).toEqual([3]);
    made[1].reply(made[1].sent[0].id, 'three');
    expect(await c).toBe('three');
  });

  it('Scheduler.QuickJobFinishesAndTheQueuedOneFollowsOnTheSameWorker', async () => {
    vi.useFakeTimers();
    const { made, makeWorker } = fakeWorkers();
    const client = createComputeClient(makeWorker, { graceMs: 1000 });
    const a = client.request('enc', 'encodings', { L: 1 });
    const b = client.request('enc', 'encodings', { L: 2 });
    made[0].reply(made[0].sent[0].id, 'one');
    expect(await a).toBe('one');
    expect(made[0].sent.map((m) => m.params.L)).toEqual([1, 2]);
    vi.advanceTimersByTime(5000);
    expect(made[0].terminated).toBe(false); // the timer went with the finished job
    expect(made).toHaveLength(1);
    made[0].reply(made[0].sent[1].id, 'two');
    expect(await b).toBe('two');
  });

  it('Scheduler.OtherChannelsAreNeverBlockedOrCancelled', async () => {
    const { made, makeWorker } = fakeWorkers();
    const client = createComputeClient(makeWorker, { graceMs: 0 });
    const big = client.request('sim', 'similarity', { L: 4096 });
    const enc = client.request('enc', 'encodings', { L: 50 });
    const encWorker = made.find((w) => w.name === 'enc');
    expect(encWorker.sent).toHaveLength(1); // sent at once, beside the big job
    client.request('sim', 'similarity', { L: 8 }); // cancels big …
    expect(await settled(big)).toBeNull();
    expect(encWorker.terminated).toBe(false); // … and nothing else
    encWorker.reply(encWorker.sent[0].id, 'enc drawn');
    expect(await enc).toBe('enc drawn');
  });

  it('Scheduler.SameRequestAgainJoinsTheRunningJob', async () => {
    const { made, makeWorker } = fakeWorkers();
    const client = createComputeClient(makeWorker, { graceMs: 0 });
    const a = client.request('sim', 'similarity', { L: 4096 });
    const again = client.request('sim', 'similarity', { L: 4096 }); // e.g. the tab shown again
    expect(made[0].terminated).toBe(false);
    expect(await settled(a)).toBeNull();
    made[0].reply(made[0].sent[0].id, 'big');
    expect(await again).toBe('big');
  });

  it('Scheduler.SharedWorkerChannelsKeepTheirWorker', async () => {
    vi.useFakeTimers();
    const { made, makeWorker } = fakeWorkers();
    const client = createComputeClient(makeWorker, {
      graceMs: 0,
      sharedWorker: (channel) => (channel.startsWith('gpt') ? 'gpt2' : null),
    });
    const load = client.request('gpt-load', 'gpt2Load', { n: 1 });
    const first = client.request('gpt', 'gpt2', { text: 'a' });
    const second = client.request('gpt', 'gpt2', { text: 'b' });
    client.request('gpt-cancel', 'gpt2Cancel', {});
    vi.advanceTimersByTime(60_000);
    expect(made.map((w) => w.name)).toEqual(['gpt2']); // one worker: the model lives there
    expect(made[0].terminated).toBe(false);
    expect(made[0].sent.map((m) => m.job)).toEqual(['gpt2Load', 'gpt2', 'gpt2Cancel']);
    made[0].reply(made[0].sent[1].id, 'a drawn');
    expect(await first).toBe('a drawn'); // waited for, not cancelled
    made[0].reply(made[0].sent[0].id, 'loaded');
    expect(await load).toBe('loaded');
    const next = made[0].sent.at(-1);
    expect(next.params.text).toBe('b');
    made[0].reply(next.id, 'b drawn');
    expect(await second).toBe('b drawn');
  });

  it('Scheduler.WorkerThatFailsToStartRejectsWithItsMessage', { timeout: 5000 }, async () => {
    const { made, makeWorker } = fakeWorkers();
    let reported = null;
    const client = createComputeClient(makeWorker, { onFatal: (m) => (reported = m) });
    const a = client.request('enc', 'encodings', {});
    made[0].fail('no wasm');
    await expect(a).rejects.toThrow('no wasm');
    expect(reported).toBe('no wasm');
  });
});
