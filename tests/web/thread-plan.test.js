// threadPlan: every core up to the threaded build's cap on a cross-origin isolated page, one
// thread (and why) anywhere else.
import { describe, expect, it } from 'vitest';
import { MAX_THREADS, threadPlan } from '../../web/src/worker/thread-plan.js';

describe('threadPlan', () => {
  it('runs one thread on a page that is not cross-origin isolated, and says why', () => {
    expect(threadPlan({ crossOriginIsolated: false, navigator: { hardwareConcurrency: 8 } })).toEqual({
      threads: 1,
      note: 'one thread: this page is not cross-origin isolated (no COOP/COEP headers)',
    });
  });

  it('uses every core of an isolated page, up to the cap', () => {
    expect(threadPlan({ crossOriginIsolated: true, navigator: { hardwareConcurrency: 2 } })).toEqual({
      threads: 2,
      note: '2 threads (cross-origin isolated page)',
    });
    expect(threadPlan({ crossOriginIsolated: true, navigator: { hardwareConcurrency: 64 } }).threads).toBe(MAX_THREADS);
  });

  it('runs one thread on one core, or when the core count is unknown', () => {
    expect(threadPlan({ crossOriginIsolated: true, navigator: { hardwareConcurrency: 1 } }).note).toBe(
      'one thread: this machine reports one core',
    );
    expect(threadPlan({ crossOriginIsolated: true }).threads).toBe(1);
  });

  it('matches the cap the wasm build is compiled with', async () => {
    const { readFile } = await import('node:fs/promises');
    const settings = await readFile(new URL('../../cpp/wasm/settings.cmake', import.meta.url), 'utf8');
    expect(settings).toMatch(new RegExp(`set\\(POSLAB_WASM_MAX_THREADS ${MAX_THREADS}\\)`));
  });
});
