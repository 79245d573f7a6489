// No function in web/src is longer than 150 lines (issue 47): a view reads as its settings, its
// figures and their wiring, not one long closure. Every .js file is parsed (vite's parseAst,
// an ESTree parser) and each function, arrow or method is measured from its first line to its
// last, nested functions included in their parent's length.
import fs from 'node:fs';
import path from 'node:path';
import { parseAst } from 'vite';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const MAX_LINES = 150;

function jsFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return jsFiles(p);
    return e.isFile() && p.endsWith('.js') ? [p] : [];
  });
}

/** Every function of a source as { name, line, lines }. */
function functionsOf(source, file = 'input.js') {
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (offset) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const out = [];
  const visit = (node, name) => {
    if (!node || typeof node.type !== 'string') return;
    if (/Function/.test(node.type)) {
      const line = lineOf(node.start);
      out.push({ name: node.id?.name ?? name ?? '(anonymous)', line, lines: lineOf(node.end) - line + 1 });
    }
    // A function takes the name it is bound to: const f = () => …, { build() {…} }, f: function.
    const named =
      node.type === 'VariableDeclarator' || node.type === 'Property' || node.type === 'MethodDefinition'
        ? (node.id?.name ?? node.key?.name ?? name)
        : name;
    for (const [key, child] of Object.entries(node)) {
      if (key === 'start' || key === 'end' || !child || typeof child !== 'object') continue;
      if (Array.isArray(child)) for (const c of child) visit(c, named);
      else visit(child, named);
    }
  };
  visit(parseAst(source, {}, file));
  return out;
}

describe('function length', () => {
  it('FunctionLength.MeasuresEveryKindOfFunction', () => {
    const body = (n) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');
    const source = [
      `function f() {\n${body(3)}\n}`,
      `const g = () => {\n${body(1)}\n};`,
      `export default { build() {\n${body(2)}\n} };`,
    ].join('\n');
    expect(functionsOf(source).map(({ name, lines }) => [name, lines])).toEqual([
      ['f', 5],
      ['g', 3],
      ['build', 4],
    ]);
  });

  it(`FunctionLength.NoWebSrcFunctionIsOver${MAX_LINES}Lines`, () => {
    const long = [];
    for (const file of jsFiles(path.join(root, 'web/src'))) {
      const rel = path.relative(root, file);
      for (const f of functionsOf(fs.readFileSync(file, 'utf8'), rel)) {
        if (f.lines > MAX_LINES) long.push(`${rel}:${f.line} ${f.name} (${f.lines} lines)`);
      }
    }
    expect(long).toEqual([]);
  });
});
