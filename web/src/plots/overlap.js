// Which lines of a plot lie on top of each other: drawn in one place, the later hides the
// earlier, and a reader counts fewer curves than the legend lists. A figure's note names them.

/** The first index where a and b differ by more than tol·(1 + |a|), or their length when never. */
export function agreeUntil(a, b, tol = 1e-6) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const same = a[i] === b[i] || Math.abs(a[i] - b[i]) <= tol * (1 + Math.abs(a[i]));
    if (!same) return i;
  }
  return n;
}

/**
 * Lines that coincide: `whole`, groups of labels whose lines are equal everywhere; `prefix`,
 * pairs equal over their first `until` points (at least `minPoints`) and apart after.
 * @param {{ label: string, y: ArrayLike<number> }[]} lines
 * @returns {{ whole: string[][], prefix: { labels: [string, string], until: number }[] }}
 */
export function coincidingLines(lines, { tol = 1e-6, minPoints = 8 } = {}) {
  const group = lines.map((_, i) => i); // union–find over equal lines
  const root = (i) => (group[i] === i ? i : (group[i] = root(group[i])));
  const prefix = [];
  for (let i = 0; i < lines.length; i++) {
    for (let j = i + 1; j < lines.length; j++) {
      const a = lines[i].y;
      const b = lines[j].y;
      const until = agreeUntil(a, b, tol);
      if (until === a.length && a.length === b.length) group[root(j)] = root(i);
      else if (until >= minPoints && root(i) !== root(j))
        prefix.push({ labels: [lines[i].label, lines[j].label], until });
    }
  }
  const groups = new Map();
  lines.forEach((l, i) => groups.set(root(i), [...(groups.get(root(i)) ?? []), l.label]));
  const whole = [...groups.values()].filter((g) => g.length > 1);
  // A pair inside one equal group is not a prefix overlap.
  const together = (x, y) => whole.some((g) => g.includes(x) && g.includes(y));
  return { whole, prefix: prefix.filter(({ labels: [x, y] }) => !together(x, y)) };
}
