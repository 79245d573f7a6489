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

// A compute client over fake workers, with createComputeClient's options: { made, client }.
function fakeClient(options) {
  const { made, makeWorker } = fakeWorkers();
  return { made, client: createComputeClient(makeWorker, options) };
}

const settled = async (promise) => {
  const marker = Symbol('pending');
  const value = await Promise.race([promise, new Promise((r) => setTimeout(() => r(marker), 20))]);
  return value === marker ? 'pending' : value;
};

afterEach(() => vi.useRealTimers());

describe('per-view scheduler', () => {
  it('Scheduler.MakesWorkersLazilyOnePerChannel', async () => {
    const { made, client } = fakeClient();
    expect(made).toHaveLength(0); // nothing starts before a view asks
    client.request('sim', 'similarity', { L: 1 });
    client.request('enc', 'encodings', { L: 2 });
    expect(made.map((w) => w.name)).toEqual(['sim', 'enc']);
    expect(made[0].sent.map((m) => m.job)).toEqual(['similarity']);
    expect(made[1].sent.map((m) => m.job)).toEqual(['encodings']);
  });

  it('Scheduler.NewerRequestTerminatesTheRunningJobsWorker', async () => {
    const { made, client } = fakeClient({ graceMs: 0 });
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
    const { made, client } = fakeClient({ graceMs: 1000 });
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

  it('Scheduler.CancelEndsTheChannelsJobsAtOnce', async () => {
    const { made, client } = fakeClient({
      graceMs: 60_000,
      sharedWorker: (ch) => (ch.startsWith('lm') ? 'lm' : null),
    });
    const a = client.request('lc', 'longContext', { times: 8 });
    const b = client.request('lc', 'longContext', { times: 4 });
    const other = client.request('sim', 'similarity', { L: 1 });
    client.cancel('lc'); // no grace: Cancel was pressed
    expect(await settled(a)).toBeNull();
    expect(await settled(b)).toBeNull();
    expect(made[0].terminated).toBe(true);
    expect(made[1].terminated).toBe(false); // another channel's job goes on
    made[1].reply(made[1].sent[0].id, 'sim');
    expect(await other).toBe('sim');
    const c = client.request('lc', 'longContext', { times: 2 }); // a fresh worker
    expect(made.map((w) => w.name)).toEqual(['lc', 'sim', 'lc']);
    made[2].reply(made[2].sent[0].id, 'two');
    expect(await c).toBe('two');
    client.cancel('nothing-here'); // no such channel: nothing to do
    // A shared worker is never cut short: its model lives there.
    const g = client.request('lm', 'lm', {});
    client.cancel('lm');
    expect(made[3].terminated).toBe(false);
    made[3].reply(made[3].sent[0].id, 'maps');
    expect(await g).toBe('maps');
  });

  it('Scheduler.QuickJobFinishesAndTheQueuedOneFollowsOnTheSameWorker', async () => {
    vi.useFakeTimers();
    const { made, client } = fakeClient({ graceMs: 1000 });
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
    const { made, client } = fakeClient({ graceMs: 0 });
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
    const { made, client } = fakeClient({ graceMs: 0 });
    const a = client.request('sim', 'similarity', { L: 4096 });
    const again = client.request('sim', 'similarity', { L: 4096 }); // e.g. the tab shown again
    expect(made[0].terminated).toBe(false);
    expect(await settled(a)).toBeNull();
    made[0].reply(made[0].sent[0].id, 'big');
    expect(await again).toBe('big');
  });

  it('Scheduler.SharedWorkerChannelsKeepTheirWorker', async () => {
    vi.useFakeTimers();
    const { made, client } = fakeClient({
      graceMs: 0,
      sharedWorker: (channel) => (channel.startsWith('lm') ? 'lm' : null),
    });
    const load = client.request('lm-load', 'lmLoad', { n: 1 });
    const first = client.request('lm', 'lm', { text: 'a' });
    const second = client.request('lm', 'lm', { text: 'b' });
    client.request('lm-cancel', 'lmCancel', {});
    vi.advanceTimersByTime(60_000);
    expect(made.map((w) => w.name)).toEqual(['lm']); // one worker: the model lives there
    expect(made[0].terminated).toBe(false);
    expect(made[0].sent.map((m) => m.job)).toEqual(['lmLoad', 'lm', 'lmCancel']);
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
    let reported = null;
    const { made, client } = fakeClient({ onFatal: (m) => (reported = m) });
    const a = client.request('enc', 'encodings', {});
    made[0].fail('no wasm');
    await expect(a).rejects.toThrow('no wasm');
    expect(reported).toBe('no wasm');
  });
});

// Small jobs on the main thread (worker/inline.js): a request whose size times the last
// measured time per unit of that job on that channel is under the budget runs in the caller's
// task, superseding the channel's jobs as a newer request does.
describe('inline jobs', () => {
  // A runner that is ready (or not) and answers every job with its params.
  function fakeInline({ ready = true } = {}) {
    const runner = {
      ready,
      warmed: 0,
      ran: [],
      warm: () => runner.warmed++,
      run: (job, params) => {
        runner.ran.push(params);
        if (params.fail) throw Object.assign(new Error('D must be even'), { field: 'D' });
        return { params, timing: { computeMs: 0.5, paintMs: 0.5 } };
      },
    };
    return runner;
  }
  const timed = (ms) => ({ timing: { computeMs: ms / 2, paintMs: ms / 2 } });
  const options = (inline) => ({ inline, graceMs: 1000, inlineBudgetMs: 6 });
  // A client whose worker has timed one sinusoidal table of L × D at `ms`: the rate is known.
  async function measured(L, D, ms) {
    const inline = fakeInline();
    const { made, client } = fakeClient(options(inline));
    const first = client.request('enc', 'encodings', { method: 'sinusoidal', L, D });
    made[0].reply(made[0].sent[0].id, timed(ms));
    await first;
    return { made, inline, client };
  }

  it('Scheduler.SmallJobRunsInlineOnceItsRateIsMeasured', async () => {
    const inline = fakeInline();
    const { made, client } = fakeClient(options(inline));
    const first = client.request('enc', 'encodings', { method: 'sinusoidal', L: 512, D: 512 });
    expect(made[0].sent).toHaveLength(1); // nothing measured yet: the worker runs it
    made[0].reply(made[0].sent[0].id, timed(3)); // 3 ms for 512 × 512 cells
    await first;
    const second = await client.request('enc', 'encodings', { method: 'sinusoidal', L: 513, D: 512 });
    expect(second.params.L).toBe(513);
    expect(inline.ran).toHaveLength(1);
    expect(made[0].sent).toHaveLength(1); // the worker was not asked
    // Background work (gallery thumbnails) asks to stay off the main thread.
    client.request('enc', 'encodings', { method: 'sinusoidal', L: 514, D: 512 }, { inline: false });
    expect(inline.ran).toHaveLength(1);
    expect(made[0].sent.map((m) => m.params.L)).toEqual([512, 514]);
  });

  it('Scheduler.JobPredictedOverTheBudgetGoesToTheWorker', async () => {
    const { made, inline, client } = await measured(512, 512, 3);
    client.request('enc', 'encodings', { method: 'sinusoidal', L: 2048, D: 512 }); // 4 × the cells: ~12 ms
    expect(inline.ran).toHaveLength(0);
    expect(made[0].sent.map((m) => m.params.L)).toEqual([512, 2048]);
    client.request('enc', 'similarity', { L: 64, D: 8 }); // another job: its own rate, none yet
    expect(inline.ran).toHaveLength(0);
    client.request('enc', 'attention', { L: 4, D: 8 }); // no size: never inline
    expect(inline.ran).toHaveLength(0);
  });

  it('Scheduler.InlineJobSupersedesTheWaitingAndRunningOnes', async () => {
    vi.useFakeTimers();
    const { made, client } = await measured(64, 64, 0.1);
    const big = client.request('enc', 'encodings', { method: 'sinusoidal', L: 8192, D: 1024 });
    const queued = client.request('enc', 'encodings', { method: 'sinusoidal', L: 4096, D: 1024 });
    const small = client.request('enc', 'encodings', { method: 'sinusoidal', L: 65, D: 64 });
    expect(await queued).toBeNull();
    expect(await big).toBeNull(); // resolved at once …
    expect((await small).params.L).toBe(65);
    made[0].reply(made[0].sent[1].id, { late: true, ...timed(500) }); // … and its late result goes nowhere
    expect(made[0].terminated).toBe(false); // it finished within its grace
    const bigAgain = client.request('enc', 'encodings', { method: 'sinusoidal', L: 8192, D: 1024 });
    const smallAgain = client.request('enc', 'encodings', { method: 'sinusoidal', L: 64, D: 64 });
    expect(await bigAgain).toBeNull();
    expect((await smallAgain).params.L).toBe(64);
    vi.advanceTimersByTime(1000); // a long job is cut short after its grace, as a newer request would
    expect(made[0].terminated).toBe(true);
  });

  it('Scheduler.InlineErrorsKeepTheirField', async () => {
    const { made, client } = fakeClient(options(fakeInline()));
    const first = client.request('enc', 'encodings', { method: 'sinusoidal', L: 64, D: 64 });
    made[0].reply(made[0].sent[0].id, timed(0.1));
    await first;
    const failed = client.request('enc', 'encodings', { method: 'sinusoidal', L: 64, D: 63, fail: true });
    await expect(failed).rejects.toMatchObject({ message: 'D must be even', field: 'D' });
  });

  it('Scheduler.InlineCoreLoadsOnlyWhenAJobIsSmall', async () => {
    const inline = fakeInline({ ready: false });
    const { made, client } = fakeClient(options(inline));
    const first = client.request('enc', 'encodings', { method: 'sinusoidal', L: 64, D: 64 });
    expect(inline.warmed).toBe(0); // the first request is never inline: nothing loads at start
    made[0].reply(made[0].sent[0].id, timed(0.1));
    await first;
    client.request('enc', 'encodings', { method: 'sinusoidal', L: 65, D: 64 });
    expect(inline.warmed).toBe(1); // small: the main thread's core starts loading …
    expect(made[0].sent).toHaveLength(2); // … and the worker runs this one meanwhile
  });

  it('Scheduler.SharedWorkerChannelsNeverRunInline', async () => {
    const inline = fakeInline();
    const { made, client } = fakeClient({
      ...options(inline),
      sharedWorker: () => 'lm',
      workOf: () => 1,
    });
    const first = client.request('lm', 'lm', { text: 'a' });
    made[0].reply(made[0].sent[0].id, timed(0.1));
    await first;
    client.request('lm', 'lm', { text: 'b' });
    expect(inline.ran).toHaveLength(0);
    expect(made[0].sent).toHaveLength(2);
  });
});
