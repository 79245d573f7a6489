// The host-page CSP docs/playground.md recommends is the one the example blog post really runs under
// (the e2e suite loads that page with its embeds), and it pins <base> so an injected
// <base href> cannot redirect the page's relative script and worker URLs.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (p) => fs.readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

describe('host page CSP', () => {
  it('HostCsp.DocsStringIsTheBlogExamplesAndPinsBase', () => {
    const blog = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(read('public/examples/blog.html'));
    expect(blog).not.toBeNull();
    const csp = blog[1];
    expect(csp.split(';').map((d) => d.trim())).toContain("base-uri 'none'");
    expect(read('docs/playground.md')).toContain(`\`${csp}\``);
    // What a cross-origin <poslab-figure> needs: its Blob worker, PosLab's origin for the
    // modules (the Blob worker imports PosLab's with import(), which script-src governs) and
    // the wasm, and wasm compilation; nothing more for workers than blob: and the page's own.
    // A directive's sources, without its name.
    const directive = (name) =>
      (
        csp
          .split(';')
          .map((d) => d.trim().split(/\s+/))
          .find((d) => d[0] === name) ?? []
      ).slice(1);
    expect(directive('worker-src')).toEqual(["'self'", 'blob:']);
    expect(directive('script-src')).toEqual(expect.arrayContaining(['https://poslab.example', "'wasm-unsafe-eval'"]));
    expect(directive('connect-src')).toContain('https://poslab.example');
  });
});
