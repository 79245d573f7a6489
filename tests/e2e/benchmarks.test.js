// The Benchmarks view in Chromium on the committed H200 files: every kernel's charts drawn,
// the device, driver and date on the page, and the PyTorch rows labelled "peer, not checked".
// "Run on this machine" on the quick sizes: nothing loads before Run; then a row per case
// with three positive times, the chart drawn, and the downloaded JSON read back by the view's
// parser; Cancel stops a run.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseResults } from '../../web/src/bench/results.js';
import { browserForFile, canvasColours, openPage, outDir } from './helpers/browser.js';

const session = browserForFile();

describe('view benchmarks', () => {
  it('E2E.BenchmarksRendersCommittedH200Files', async () => {
    const section = '#view-benchmarks';
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=benchmarks`);
    await page.waitForFunction(
      (s) => /results files/.test(document.querySelector(s)?.textContent ?? ''),
      `${section} .bench-status`,
    );
    const devices = await page.locator(`${section} .bench-device`).allTextContents();
    expect(devices.length).toBeGreaterThanOrEqual(2);
    for (const d of devices) expect(d).toMatch(/NVIDIA H200.*driver 580\.159\.04.*2026-11-27/);
    const kernels = await page
      .locator(`${section} .bench-kernel`)
      .evaluateAll((els) => els.map((e) => e.dataset.kernel));
    expect(new Set(kernels)).toEqual(new Set(['alibi', 'attention', 'rope', 'sinusoidal', 't5']));
    // every chart has drawn something besides the background
    const colours = await canvasColours(page, `${section} .bench-plots`);
    expect(colours.length).toBe(2 * kernels.length);
    for (const c of colours) expect(c).toBeGreaterThan(3);
    // torch rows: checked against the core like PosLab's (torch_baseline.py validates each)
    const torchStatus = await page
      .locator(`${section} .bench-table tr`, { hasText: 'torch-' })
      .evaluateAll((rows) => [...new Set(rows.map((r) => r.lastElementChild.textContent))]);
    expect(torchStatus).toEqual(['validated']);
    expect(await page.locator(`${section} tr[data-status="passed"]`).count()).toBeGreaterThan(100);
    await page.screenshot({ path: path.join(outDir, 'benchmarks.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('E2E.BenchmarksRunOnThisMachine', async () => {
    const local = '#view-benchmarks .bench-local';
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=benchmarks`);
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.waitForSelector(`${local} .bench-local-run`);
    await page.waitForTimeout(500);
    // nothing runs until asked: no benchmark worker, no scalar build, no results
    expect(requests.filter((u) => /bench\.worker/.test(u))).toEqual([]);
    expect(await page.locator(`${local} .bench-local-results`).isHidden()).toBe(true);
    expect(await page.locator(`${local} .bench-local-download`).isDisabled()).toBe(true);

    await page.selectOption(`${local} .bench-local-size`, 'tiny');
    await page.click(`${local} .bench-local-run`);
    await page.waitForFunction((s) => document.querySelector(s)?.dataset.state === 'done', local, {
      timeout: 60_000,
    });
    expect(requests.filter((u) => /bench\.worker/.test(u)).length).toBe(1);
    expect(requests.filter((u) => /\.wasm$/.test(u)).length).toBeGreaterThanOrEqual(2);

    // one row per case, each variant a finite positive time, speed-ups as ratios
    const rows = await page
      .locator(`${local} .bench-local-table tbody tr`)
      .evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    expect(rows.map((r) => r[0].split(' ')[0])).toEqual(['attention', 'RoPE', 'sinusoidal']); // the table's labels
    for (const r of rows) {
      for (const ms of r.slice(2, 5)) {
        expect(Number.isFinite(Number(ms)), r.join(' | ')).toBe(true);
        expect(Number(ms)).toBeGreaterThan(0);
      }
      for (const x of r.slice(5)) expect(x).toMatch(/×$/);
    }
    // the ratios come with what they measure (a wasm time is the whole API call, copies included)
    expect(await page.textContent(`${local} .bench-local-caveat`)).toMatch(/^A ratio is the other variant’s time/);
    // the header names the benchmark module, loaded by this run
    expect(await page.textContent('#core-status')).toBe('benchmark module: ready (WebAssembly)');
    // the chart: Chart.js loads on first use, then draws three colours of bars and a legend
    await page.waitForFunction(
      (s) => {
        const c = document.querySelector(`${s} canvas`);
        const d = c?.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const seen = new Set();
        for (let i = 0; d && i < d.length && seen.size < 10; i += 4 * 7)
          seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
        return seen.size > 3;
      },
      local,
      { timeout: 30_000 },
    );
    const [colours] = await canvasColours(page, local);
    expect(colours).toBeGreaterThan(3);

    // the download is a results file the view reads, with this browser as its device
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`${local} .bench-local-download`)]);
    const name = download.suggestedFilename();
    expect(name).toMatch(/^poslab-wasm-browser-[\w.-]+\.json$/);
    const file = parseResults(fs.readFileSync(await download.path(), 'utf8'), name);
    expect(file.schema).toBe('poslab-bench/1');
    expect(file.preset).toBe('tiny');
    expect(file.device.user_agent).toMatch(/Chrome/);
    expect(file.device.hardware_concurrency).toBeGreaterThanOrEqual(1);
    expect(file.device.wasm_targets).toEqual({ 'wasm-simd': 'WASM', 'wasm-scalar': 'EMU128' });
    expect(file.results.length).toBe(9);
    for (const r of file.results) {
      expect(r.validated).toBe(true);
      expect(r.median_ms).toBeGreaterThan(0);
    }
    await page.locator(local).screenshot({ path: path.join(outDir, 'benchmarks-local.png') });

    // Cancel: a full run stops, the previous results stay, Run is offered again
    await page.selectOption(`${local} .bench-local-size`, 'default');
    await page.click(`${local} .bench-local-run`);
    await page.waitForFunction(
      (s) => /Timing/.test(document.querySelector(`${s} .bench-local-progress`).textContent),
      local,
    );
    await page.click(`${local} .bench-local-cancel`);
    expect(await page.locator(local).getAttribute('data-state')).toBe('cancelled');
    expect(await page.locator(`${local} .bench-local-run`).isEnabled()).toBe(true);
    expect(await page.locator(`${local} .bench-local-table tbody tr`).count()).toBe(3);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
