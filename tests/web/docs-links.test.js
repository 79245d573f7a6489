// The README and docs/*.md link to each other and to files of the repository: every relative
// link must name a file that exists and, with a #anchor, a heading of that file (GitHub's
// anchors), so a moved section or a renamed file breaks this test instead of a reader's click.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const docs = fs
  .readdirSync(path.join(root, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const FILES = ['README.md', ...docs];

// The text outside fenced code blocks and inline code, where a link means a link.
function prose(markdown) {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/``[^`]*``|`[^`\n]*`/g, '');
}

// GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, and a -N
// suffix on the Nth repeat of a name.
function anchors(markdown) {
  const seen = new Map();
  const out = new Set();
  for (const [, text] of markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}

// [text](target) and ![alt](target), the target without an optional "title".
const links = (markdown) =>
  [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);

describe('documentation links', () => {
  it('DocsLinks.EveryDocsFileIsLinkedFromTheReadme', () => {
    const readme = links(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
    for (const doc of docs) expect(readme, `README.md does not link ${doc}`).toContain(doc);
  });

  it.each(FILES)('DocsLinks.RelativeLinksResolve %s', (file) => {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const broken = [];
    for (const target of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [name, anchor] = target.split('#');
      const resolved = name
        ? path.resolve(path.dirname(path.join(root, file)), decodeURI(name))
        : path.join(root, file);
      if (!resolved.startsWith(root) || !fs.existsSync(resolved)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!resolved.endsWith('.md')) {
        broken.push(`${target}: an anchor into a file that is not Markdown`);
        continue;
      }
      if (!anchors(fs.readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${target}: no such heading`);
    }
    expect(broken).toEqual([]);
  });

  it('DocsLinks.AnchorsFollowGitHub', () => {
    const headings = anchors(
      '# 4. Formula conventions\n## GPT-2: `poslab gpt2`\n### Sizes\n### Sizes\n```\n# not a heading\n```\n',
    );
    expect([...headings]).toEqual(['4-formula-conventions', 'gpt-2-poslab-gpt2', 'sizes', 'sizes-1']);
  });
});
