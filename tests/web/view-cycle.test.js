// The update cycle every view runs on (views/kit.js viewCycle), on a stand-in shell (no DOM):
// a job per new setting and none for settings drawn or being computed, run on demand (Run,
// Cancel, the reason on the status line, what is kept shown without Run), progress drawn for
// the newest job only, an executor in place of the view's channel, a partial result that Run
// continues, and every error beside the control (or page-local input) its field names.
import { describe, expect, it } from 'vitest';
import { channelExecutor, viewCycle } from '../../web/src/views/kit.js';
import { defaults, viewNamed } from '../../web/src/state/registry.js';

const tick = () => new Promise((r) => setTimeout(r, 0));
// Every setting at its default but those given (the combination rules read them all).
const at = (over) => ({ ...defaults(), ...over });

/** A shell as createViewShell makes it, minus the DOM: what the cycle reads and writes. */
function fakeShell(name) {
  const view = viewNamed(name);
  const figure = { stale: false, classList: { toggle: (_, on) => (figure.stale = on) } };
  const errors = {};
  return {
    view,
    prefix: view.prefix,
    drawn: false,
    status: { textContent: '' },
    plots: { querySelectorAll: () => [figure] },
    section: { contains: () => false }, // the person is working elsewhere: nothing to scroll
    figure,
    errors,
    controls: {
      lastKey: null,
      sync() {},
      clearErrors: () => Object.keys(errors).forEach((k) => delete errors[k]),
      setError: (key, message) => (errors[key] = message),
      has: (key) => Object.hasOwn(view.settings, key.slice(view.prefix.length + 1)),
    },
    settled: () => Promise.resolve(),
  };
}

/** An executor whose jobs end when the test says: jobs[i].resolve(result) / .reject(error). */
function fakeExecutor() {
  const jobs = [];
  let cancels = 0;
  return {
    jobs,
    get cancels() {
      return cancels;
    },
    run(job, params, { onProgress }) {
      return new Promise((resolve, reject) => jobs.push({ job, params, onProgress, resolve, reject }));
    },
    cancel() {
      cancels++;
    },
  };
}

function fakeButton() {
  const b = { disabled: false, listeners: [] };
  b.addEventListener = (type, fn) => b.listeners.push(fn);
  b.click = () => b.listeners.forEach((fn) => fn());
  return b;
}

/** A view on the cycle: `own` adds hooks to a build that records what it was asked to draw. */
function mount(name, own = {}) {
  const shell = fakeShell(name);
  const exec = fakeExecutor();
  const log = { draws: [], redraws: [], progress: [], ends: [], starts: 0 };
  const view = viewCycle(
    shell,
    {
      executor: () => exec,
      build: () => ({
        draw: (r, p) => log.draws.push({ r, p }),
        redraw: (r, p) => log.redraws.push({ r, p }),
        start: () => log.starts++,
        progress: (d) => log.progress.push(d),
        end: (outcome) => log.ends.push(outcome),
        ...own,
      }),
    },
    {},
  );
  return { shell, exec, log, view };
}

describe('view update cycle', () => {
  it('ViewCycle.RunsAJobPerNewSettingAndNoneForDrawnOnes', async () => {
    const { exec, log, view, shell } = mount('offset');
    view.update(at({ 'off.D': 16, 'off.k': 3 }));
    expect(exec.jobs.map((j) => [j.params.D, j.params.k])).toEqual([[16, 3]]);
    expect(exec.jobs[0].job).toBe('offset'); // the registry's job
    view.update(at({ 'off.D': 16, 'off.k': 3 })); // being computed: not asked again
    expect(exec.jobs).toHaveLength(1);
    exec.jobs[0].resolve({ value: 1 });
    await tick();
    expect(log.draws.map(({ r, p }) => [r, p.D, p.k])).toEqual([[{ value: 1 }, 16, 3]]);
    expect(shell.drawn).toBe(true);
    view.update(at({ 'off.D': 16, 'off.k': 3 })); // drawn: nothing to do
    expect(exec.jobs).toHaveLength(1);
    view.update(at({ 'off.D': 16, 'off.k': 4 }));
    expect(exec.jobs).toHaveLength(2);
  });

  it('ViewCycle.SettingsBackToTheDrawnOnesDropTheJobInFlight', async () => {
    const { exec, log, view, shell } = mount('offset');
    view.update(at({ 'off.k': 1 }));
    exec.jobs[0].resolve('one');
    await tick();
    view.update(at({ 'off.k': 2 }));
    view.update(at({ 'off.k': 1 })); // back before k = 2 came: its result must not be drawn
    expect(log.redraws.map((d) => d.r)).toEqual(['one']);
    exec.jobs[1].resolve('two');
    await tick();
    expect(log.draws.map((d) => d.r)).toEqual(['one']);
    expect(shell.status.textContent).toBe('');
  });

  it('ViewCycle.OnDemandWaitsForRunAndSaysWhy', async () => {
    const run = fakeButton();
    const cancel = fakeButton();
    const { exec, log, view, shell } = mount('long-context', {
      runButtons: { run, cancel },
      demand: (p) => (p.model === 'tiny' ? null : 'press Run: it takes minutes'),
    });
    expect([run.disabled, cancel.disabled]).toEqual([false, true]);
    view.update({ 'lc.model': 'pythia-70m', 'lc.times': 2 });
    expect(exec.jobs).toHaveLength(0);
    expect(shell.status.textContent).toBe('Not drawn: press Run: it takes minutes.');
    run.click();
    expect(exec.jobs.map((j) => j.params)).toEqual([{ model: 'pythia-70m', times: 2 }]);
    expect([run.disabled, cancel.disabled]).toEqual([true, false]);
    expect(log.starts).toBe(1);
    exec.jobs[0].resolve({ curves: 5 });
    await tick();
    expect(log.draws).toHaveLength(1);
    expect(log.ends).toEqual(['drawn']);
    expect([run.disabled, cancel.disabled]).toEqual([false, true]);
    run.click(); // drawn already: Run draws it again, no job
    expect(exec.jobs).toHaveLength(1);
    view.update({ 'lc.model': 'tiny', 'lc.times': 2 }); // a setting that needs no Run
    expect(exec.jobs).toHaveLength(2);
  });

  it('ViewCycle.CancelStopsTheRunningJob', async () => {
    const run = fakeButton();
    const cancel = fakeButton();
    const { exec, log, view } = mount('long-context', { runButtons: { run, cancel }, demand: () => '' });
    view.update({ 'lc.times': 2 });
    run.click();
    cancel.click();
    expect(exec.cancels).toBe(1);
    exec.jobs[0].resolve(null); // what a cancelled job resolves to
    await tick();
    expect(log.draws).toEqual([]);
    expect(log.ends).toEqual(['cancelled']);
    expect([run.disabled, cancel.disabled]).toEqual([false, true]);
    run.click(); // not drawn: Run runs it again
    expect(exec.jobs).toHaveLength(2);
  });

  it('ViewCycle.ANewKeyCancelsTheOnDemandJobAndIgnoresItsEnd', async () => {
    const { exec, log, view, shell } = mount('long-context', { demand: () => 'press Run' });
    view.update({ 'lc.times': 2 });
    shell.run();
    exec.jobs[0].onProgress({ step: 1 });
    view.update({ 'lc.times': 3 });
    expect(exec.cancels).toBe(1);
    expect(log.ends).toEqual(['cancelled']);
    exec.jobs[0].onProgress({ step: 2 }); // late words of the cancelled job
    exec.jobs[0].resolve({ stale: true });
    await tick();
    expect(log.progress).toEqual([{ step: 1 }]);
    expect(log.draws).toEqual([]);
    expect(shell.status.textContent).toBe('Not drawn: press Run.');
  });

  it('ViewCycle.ProgressIsDrawnOnlyForTheNewestJob', async () => {
    const { exec, log, view } = mount('offset');
    view.update(at({ 'off.k': 1 }));
    view.update(at({ 'off.k': 2 })); // supersedes the first
    exec.jobs[0].onProgress({ from: 1 });
    exec.jobs[1].onProgress({ from: 2 });
    expect(log.progress).toEqual([{ from: 2 }]);
    exec.jobs[0].resolve('one');
    exec.jobs[1].resolve('two');
    await tick();
    expect(log.draws.map((d) => d.r)).toEqual(['two']);
  });

  it('ViewCycle.KeyLeavesOutWhatIsOnlyDrawn', async () => {
    // The Models view's layer and head pick a map of the result: no job, a redraw.
    const { exec, log, view } = mount('lm', { key: (p) => ({ text: p.text }) });
    view.update({ 'lm.text': 'a cat', 'lm.layer': 0 });
    view.update({ 'lm.text': 'a cat', 'lm.layer': 1 }); // picked while it runs
    exec.jobs[0].resolve('maps');
    await tick();
    expect(log.draws).toEqual([{ r: 'maps', p: { text: 'a cat', layer: 1 } }]); // with the pick made meanwhile
    view.update({ 'lm.text': 'a cat', 'lm.layer': 2 });
    expect(exec.jobs).toHaveLength(1);
    expect(log.redraws).toEqual([{ r: 'maps', p: { text: 'a cat', layer: 2 } }]);
  });

  it('ViewCycle.PartialResultIsDrawnAndRunContinuesIt', async () => {
    const { exec, log, view, shell } = mount('length-generalisation', {
      demand: () => '',
      params: (p) => ({ N: p.N }),
    });
    view.update({ 'lg.N': 4 });
    shell.run();
    shell.cancel(); // Stop: the pool keeps what finished
    exec.jobs[0].resolve({ finished: 1, partial: true });
    await tick();
    expect(log.draws.map((d) => d.r.finished)).toEqual([1]);
    shell.run();
    expect(exec.jobs).toHaveLength(2);
    exec.jobs[1].resolve({ finished: 2 });
    await tick();
    shell.run(); // complete: nothing left to run
    expect(exec.jobs).toHaveLength(2);
  });

  it('ViewCycle.KeptResultIsShownWithoutRun', async () => {
    const kept = { 4: { runs: 2 }, 5: { runs: 1, partial: true }, 6: { runs: 3 } };
    const { exec, log, view, shell } = mount('length-generalisation', {
      demand: () => '',
      cached: async (p) => kept[p.N] ?? null,
    });
    await view.update({ 'lg.N': 4 });
    expect(log.draws.map((d) => d.r)).toEqual([{ runs: 2 }]);
    expect(shell.drawn).toBe(true);
    shell.run(); // all of it kept: nothing to train
    expect(exec.jobs).toHaveLength(0);
    await view.update({ 'lg.N': 5 });
    expect(log.draws).toHaveLength(2);
    shell.run(); // partly kept: Train trains the rest
    expect(exec.jobs).toHaveLength(1);
    exec.jobs[0].resolve(null);
    await tick();
    // A restore that comes after the setting moved on is not drawn.
    const late = view.update({ 'lg.N': 6 });
    const now = view.update({ 'lg.N': 4 });
    await Promise.all([late, now]);
    expect(log.draws.map((d) => d.p.N)).toEqual([4, 5, 4]);
  });

  it('ViewCycle.ExecutorReplacesTheViewsChannel', async () => {
    const calls = [];
    const compute = {
      request: (...a) => (calls.push(['request', ...a]), new Promise(() => {})),
      cancel: (ch) => calls.push(['cancel', ch]),
    };
    const shell = fakeShell('offset');
    viewCycle(shell, { build: () => ({ draw() {} }) }, { compute }).update(at({ 'off.k': 1 }));
    const exec0 = { D: 16, k: 1, p: 10, base: 10000 }; // the view's settings
    shell.cancel();
    expect(calls.map((c) => c.slice(0, 4))).toEqual([
      ['request', 'off', 'offset', exec0],
      ['cancel', 'off'],
    ]);
    expect(typeof calls[0][4].onProgress).toBe('function');
    // An executor hook: the job goes there, never to the channel.
    const exec = fakeExecutor();
    const other = fakeShell('length-generalisation');
    let given = null;
    const executor = (ctx) => ((given = ctx), exec);
    viewCycle(other, { build: () => ({ draw() {} }), executor }, { compute }).update({ 'lg.N': 4 });
    expect(given).toEqual({ compute, shell: other });
    expect(exec.jobs.map((j) => j.params)).toEqual([{ N: 4 }]);
    other.cancel();
    expect(exec.cancels).toBe(1);
    expect(calls).toHaveLength(2);
    channelExecutor(compute, 'x').cancel();
    expect(calls.at(-1)).toEqual(['cancel', 'x']);
  });

  it('ViewCycle.ErrorGoesBesideTheControlItsFieldNames', async () => {
    const fileErrors = [];
    const { exec, view, shell } = mount('lm', { fieldErrors: { source: (m) => fileErrors.push(m) } });
    view.update({ 'lm.text': 'x'.repeat(3), 'lm.init': 'mini' });
    exec.jobs[0].reject(Object.assign(new Error('70 tokens: at most n_positions = 64'), { field: 'tokens' }));
    await tick();
    expect(shell.errors).toEqual({ 'lm.text': '70 tokens: at most n_positions = 64' });
    expect(shell.status.textContent).toBe('Not drawn: 70 tokens: at most n_positions = 64.');
    expect(shell.figure.stale).toBe(true);
    // A field that is no setting but a page-local input: beside that input, and on the status line.
    view.update({ 'lm.text': 'xy', 'lm.init': 'mini' });
    exec.jobs[1].reject(Object.assign(new Error('the loaded model is no longer in memory'), { field: 'source' }));
    await tick();
    expect(shell.errors).toEqual({});
    expect(fileErrors).toEqual(['the loaded model is no longer in memory']);
    expect(shell.status.textContent).toMatch(/no longer in memory/);
    // Drawn, then refused: the last good plots stay, marked stale.
    view.update({ 'lm.text': 'ok', 'lm.init': 'mini' });
    exec.jobs[2].resolve('maps');
    await tick();
    expect(shell.figure.stale).toBe(false);
    view.update({ 'lm.text': 'ok', 'lm.init': 'small' });
    exec.jobs[3].reject(Object.assign(new Error("unknown random-init shape 'small'"), { field: 'shape' }));
    await tick();
    expect(shell.errors).toEqual({ 'lm.init': "unknown random-init shape 'small'" });
    expect(shell.status.textContent).toBe(
      "Not updated: unknown random-init shape 'small'. The plots show the last good settings.",
    );
    expect(shell.figure.stale).toBe(true);
  });
});
