// The page's plain parts added for newcomers: the tabs' groups and keys, the core status text,
// prose with `code`, every view's lead sentence, the note on coinciding curves and the
// benchmark variants' plain names.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { plainVariant } from '../../web/src/bench/variant-names.js';
import { VIEW_LEADS } from '../../web/src/content/leads.js';
import { agreeUntil, coincidingLines } from '../../web/src/plots/overlap.js';
import { GROUPS, VIEWS } from '../../web/src/state/registry.js';
import { coreStatusText } from '../../web/src/ui/core-status.js';
import { proseParts } from '../../web/src/ui/prose.js';
import { groupedViews, tabKeyTarget } from '../../web/src/ui/tabs.js';

describe('navigation', () => {
  it('Nav.GroupsComeFromTheRegistryAndHoldEveryViewOnce', () => {
    const groups = groupedViews(VIEWS);
    expect(groups.map((g) => g.name)).toEqual(GROUPS.map((g) => g.name));
    const listed = groups.flatMap((g) => g.views.map((v) => v.name));
    expect([...listed].sort()).toEqual(VIEWS.map((v) => v.name).sort());
    const learn = groups.find((g) => g.name === 'learn').views.map((v) => v.name);
    expect(learn).toEqual(['start', 'encodings', 'similarity', 'extrapolation', 'offset', 'attention', 'gallery']);
    expect(() => groupedViews([{ name: 'x', title: 'X', group: 'nowhere' }])).toThrow(/x/);
  });

  it('Nav.ArrowsHomeAndEndMoveAmongTheTabs', () => {
    expect(tabKeyTarget('ArrowRight', 0, 10)).toBe(1);
    expect(tabKeyTarget('ArrowRight', 9, 10)).toBe(0);
    expect(tabKeyTarget('ArrowLeft', 0, 10)).toBe(9);
    expect(tabKeyTarget('Home', 6, 10)).toBe(0);
    expect(tabKeyTarget('End', 2, 10)).toBe(9);
    expect(tabKeyTarget('a', 2, 10)).toBe(-1);
  });

  it('Nav.CoreStatusSaysWhatIsLoadingReadyOrWhyItFailed', () => {
    expect(coreStatusText({ core: 'unused' }).text).toMatch(/not loaded/);
    expect(coreStatusText({ core: 'unused', view: 'Benchmarks' }).text).toBe('loading the Benchmarks view…');
    expect(coreStatusText({ core: 'loading' }).text).toMatch(/loading the WebAssembly core/);
    const ready = coreStatusText({ core: 'ready', simd: 'WASM' });
    expect(ready.text).toBe('core: ready (WebAssembly, SIMD)');
    expect(ready.title).toMatch(/WASM/);
    expect(coreStatusText({ core: 'ready', simd: 'EMU128' }).text).toMatch(/no SIMD/);
    const failed = coreStatusText({ core: 'failed', why: 'CSP refused the wasm', view: 'Encodings' });
    expect(failed.text).toMatch(/failed/);
    expect(failed.title).toBe('CSP refused the wasm');
  });

  it('Prose.BacktickedSpansBecomeCode', () => {
    expect(proseParts('run `poslab lm` now')).toEqual([
      { code: false, text: 'run ' },
      { code: true, text: 'poslab lm' },
      { code: false, text: ' now' },
    ]);
    expect(proseParts('an odd ` stays')).toEqual([{ code: false, text: 'an odd ` stays' }]);
    expect(proseParts('`a` and `b')).toEqual([
      { code: true, text: 'a' },
      { code: false, text: ' and `b' },
    ]);
  });

  it('Leads.EveryViewOpensWithOnePlainSentence', () => {
    expect(Object.keys(VIEW_LEADS).sort()).toEqual(VIEWS.map((v) => v.name).sort());
    for (const [name, lead] of Object.entries(VIEW_LEADS)) {
      expect(lead.split(/[.!?](\s|$)/).filter((s) => s.trim()).length, name).toBe(1);
      expect(lead, name).not.toMatch(/[Ss]eed 0\d\d|`/);
    }
  });

  it('Overlap.NamesCurvesThatCoincideWhollyOrUpToAPoint', () => {
    const base = [3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1];
    const lines = [
      { label: 'none', y: base },
      { label: 'dynamic', y: [...base.slice(0, 10), 5, 5] },
      { label: 'copy', y: [...base] },
      { label: 'other', y: base.map((v) => v + 1) },
    ];
    expect(agreeUntil(base, lines[1].y)).toBe(10);
    const { whole, prefix } = coincidingLines(lines);
    expect(whole).toEqual([['none', 'copy']]);
    expect(prefix).toEqual([
      { labels: ['none', 'dynamic'], until: 10 },
      { labels: ['dynamic', 'copy'], until: 10 },
    ]);
    expect(coincidingLines([lines[0], lines[3]])).toEqual({ whole: [], prefix: [] });
  });

  it('Bench.VariantIdsGetPlainNames', () => {
    expect(plainVariant({ variant: '2-vec16', dtype: 'fp16', label: '2-vec16 fp16' })).toBe('vectorised kernel, fp16');
    expect(plainVariant({ variant: 'torch-flash', dtype: 'bf16', label: 'torch-flash bf16' })).toBe(
      'PyTorch SDPA, flash backend, bf16',
    );
    expect(plainVariant({ variant: 'mystery', dtype: 'fp32', label: 'mystery fp32' })).toBe('mystery fp32');
    // Every variant of the committed result files has a plain name (issue 48: "3-rotate fp32" in a legend).
    const dir = new URL('../../public/bench/', import.meta.url);
    const variants = new Set(
      fs
        .readdirSync(dir)
        .filter((f) => /^(poslab|torch)-.*\.json$/.test(f))
        .flatMap((f) => JSON.parse(fs.readFileSync(new URL(f, dir), 'utf8')).results.map((r) => r.variant)),
    );
    expect(variants.size).toBeGreaterThan(10);
    for (const variant of variants) {
      expect(plainVariant({ variant, dtype: 'fp16', label: `${variant} fp16` }), variant).not.toContain(variant);
    }
    expect(plainVariant({ variant: 'rope+2-flash', dtype: 'fp16', label: '' })).toBe(
      'RoPE in the fused attention, fp16',
    );
  });
});
