// The header's status line names the engine of the view on screen and its state (issue 48,
// item 5): ui/core-status.js's table and wording.
import { describe, expect, it } from 'vitest';
import { VIEWS } from '../../web/src/state/registry.js';
import { ENGINE_WORDS, VIEW_ENGINES, coreStatusText, engineOf } from '../../web/src/ui/core-status.js';

describe('the header status', () => {
  it('EngineStatus.EveryEngineNamedViewIsARealView', () => {
    const names = new Set(VIEWS.map((v) => v.name));
    for (const [view, engine] of Object.entries(VIEW_ENGINES)) {
      expect(names.has(view), view).toBe(true);
      if (engine !== null) expect(Object.hasOwn(ENGINE_WORDS, engine), engine).toBe(true);
    }
    expect(engineOf('encodings')).toBe('core');
    expect(engineOf('lm')).toBe('lm');
    expect(engineOf('text-lab')).toBe('trainer');
    expect(engineOf('benchmarks')).toBe('bench');
    expect(engineOf('gallery')).toBe(null);
  });

  it('EngineStatus.AModuleViewSaysItsModuleNotTheCore', () => {
    const lm = (run) => coreStatusText({ core: 'unused', engine: 'lm', run }).text;
    expect(lm('unused')).toBe("language-model module: not loaded yet (it loads with this view's first run)");
    expect(lm('loading')).toMatch(/^language-model module: working/);
    expect(lm('ready')).toBe('language-model module: ready (WebAssembly)');
    expect(lm('failed')).toMatch(/^language-model module: the last run failed/);
    expect(coreStatusText({ core: 'ready', simd: 'WASM', engine: 'trainer', run: 'ready' }).text).toBe(
      'trainer: ready (WebAssembly)',
    );
    expect(coreStatusText({ core: 'unused', engine: 'bench' }).text).toBe(
      'benchmark module: not loaded yet (Run on this machine loads it)',
    );
    expect(coreStatusText({ core: 'unused', engine: null }).text).toMatch(/^no engine: /);
    // The core's own failure is said on a core view, even while another view's code loads.
    expect(coreStatusText({ core: 'failed', why: 'x', view: 'Offset matrix' }).text).toBe('core: failed to load');
    expect(coreStatusText({ core: 'failed', engine: 'lm', run: 'ready' }).text).toMatch(
      /^language-model module: ready/,
    );
  });
});
