// The header's status names the engine that computes the view on screen and its state (issue
// 48, item 5): the core for the figure views, the language-model module for Models, Long
// context, the lens and the RoPE inspector, the trainer for the two training views, the
// benchmark module for Benchmarks (loaded by its Run), nothing for the gallery.
import { describe, expect, it } from 'vitest';
import { VIEWS, viewNamed } from '../../web/src/state/registry.js';
import { ENGINE_WORDS, engineOf } from '../../web/src/ui/core-status.js';
import { browserForFile, drawn, openPage } from './helpers/browser.js';

const session = browserForFile();

describe('the header status', () => {
  it('E2E.HeaderNamesEachViewsEngine', async () => {
    const { page, context, problems } = await openPage(session.browser, `${session.base}#view=encodings`);
    const status = page.locator('#core-status');
    for (const { name } of VIEWS) {
      await page.evaluate((n) => (location.hash = `#view=${n}`), name);
      await page.locator(`#view-${name} .view-intro h2`).waitFor();
      const engine = engineOf(name);
      await expect.poll(() => status.getAttribute('data-engine'), { timeout: 30_000 }).toBe(engine ?? 'none');
      const text = await status.textContent();
      if (engine) expect(text, name).toMatch(new RegExp(`^${ENGINE_WORDS[engine]}: `));
      else expect(text, name).toMatch(/^no engine: /);
      expect(text, name).not.toMatch(/this view has not needed it/);
    }
    // The Models view's forward pass has run on its module: ready, not "core: not loaded".
    await page.evaluate(() => (location.hash = '#view=lm'));
    await drawn(page, viewNamed('lm').prefix);
    await expect.poll(() => status.textContent()).toBe('language-model module: ready (WebAssembly)');
    expect(problems).toEqual([]);
    await context.close();
  });
});
