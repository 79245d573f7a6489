// The playground's module graph (every relative import of web/src, static or dynamic): the
// state layer imports nothing outside itself, so the views may import the registry while the
// registry never loads a view (views/loaders.js does), and no module imports itself in a circle.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/src');
const IMPORT =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

/** module (path relative to web/src) → the modules it imports, relative ones only. */
function importGraph() {
  const graph = new Map();
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, e.name);
      if (e.isDirectory()) walk(file);
      else if (/\.m?js$/.test(e.name)) {
        const deps = [];
        for (const m of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
          const spec = (m[1] ?? m[2] ?? m[3]).split('?')[0];
          if (spec.startsWith('.')) deps.push(path.relative(src, path.resolve(path.dirname(file), spec)));
        }
        graph.set(path.relative(src, file), deps);
      }
    }
  };
  walk(src);
  return graph;
}

/** The first circle found (a list of modules, the first repeated at the end), or null. */
function findCircle(graph) {
  const state = new Map(); // module → 'open' while on the path, 'done' after
  const trail = [];
  const visit = (m) => {
    if (state.get(m) === 'done' || !graph.has(m)) return null;
    if (state.get(m) === 'open') return [...trail.slice(trail.indexOf(m)), m];
    state.set(m, 'open');
    trail.push(m);
    for (const d of graph.get(m)) {
      const circle = visit(d);
      if (circle) return circle;
    }
    trail.pop();
    state.set(m, 'done');
    return null;
  };
  for (const m of graph.keys()) {
    const circle = visit(m);
    if (circle) return circle;
  }
  return null;
}

describe('module graph', () => {
  const graph = importGraph();

  it('Imports.StateImportsNothingOutsideState', () => {
    expect(graph.get('state/registry.js')).toBeDefined();
    for (const [m, deps] of graph) {
      if (!m.startsWith('state/')) continue;
      for (const d of deps) expect(d.startsWith('state/'), `${m} imports ${d}`).toBe(true);
    }
  });

  it('Imports.NoModuleImportsItselfInACircle', () => {
    expect(findCircle(graph)).toBeNull();
    // The finder finds one when there is one.
    expect(
      findCircle(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual(['a', 'b', 'c', 'a']);
  });
});
