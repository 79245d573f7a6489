// The host-page CSP the README recommends is the one the example blog post really runs under
// (the e2e suite loads that page with its embeds), and it pins <base> so an injected
// <base href> cannot redirect the page's relative script and worker URLs.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (p) => fs.readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

describe('host page CSP', () => {
  it('HostCsp.ReadmeStringIsTheBlogExamplesAndPinsBase', () => {
    const blog = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(read('public/examples/blog.html'));
    expect(blog).not.toBeNull();
    const csp = blog[1];
    expect(csp.split(';').map((d) => d.trim())).toContain("base-uri 'none'");
    expect(read('README.md')).toContain(`\`${csp}\``);
  });
});
