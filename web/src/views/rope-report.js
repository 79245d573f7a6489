// The RoPE inspector's report (core/rope-config.js) in words and reference lines: pure, so the
// page's wording is tested in Node (tests/web/rope-report.test.js).
import { formatExact } from '../plots/format.js';

/** A count with thousands separators: 131,072. */
export const count = (n) => n.toLocaleString('en-US');

/** Layers as runs of the same kind: [{ from, to, attention, window, scheme }]. */
export function layerRuns(layers) {
  const runs = [];
  layers.forEach((l, i) => {
    const last = runs.at(-1);
    if (last && last.attention === l.attention && last.window === l.window && last.scheme === l.scheme) last.to = i;
    else runs.push({ from: i, to: i, ...l });
  });
  return runs;
}

/** What attends where, in words: "sliding window 1,024", "chunks of 8,192", "full". */
export function attentionText(l) {
  if (l.attention === 'sliding') return `sliding window ${count(l.window)}`;
  if (l.attention === 'chunked') return `chunks of ${count(l.window)}`;
  return l.attention;
}

/** How a layer places positions, in words. */
export function positionText(l, schemes) {
  if (l.scheme === null) return 'NoPE (no rotation)';
  const s = schemes[l.scheme];
  const scaled = s.scaling === 'none' ? '' : `, ${s.scaling} × ${formatExact(s.factor)}`;
  return `RoPE base ${count(s.base)}${scaled}${schemes.length > 1 ? ` (${s.name})` : ''}`;
}

/** One RoPE base's facts, as the lines of its summary. */
export function schemeFacts(s) {
  const pairs = s.invFreq.length;
  return [
    `rotary dims R = ${s.rotaryDim} (${pairs} pairs); trained context N = ${count(s.trainedContext)} (from ${s.trainedContextFrom})`,
    `${s.rotatingPairs} of ${pairs} pairs complete a turn within N: the critical dimension is ${2 * s.rotatingPairs}`,
    s.scaling === 'none'
      ? 'no scaling'
      : `${s.scaling} × ${formatExact(s.factor)} reaches ${count(s.reaches)} positions; attention factor ${formatExact(s.attentionFactor)}`,
    `its layers see query–key distances up to ${count(s.maxDistance)}`,
  ];
}

/** Lines at each base's N and reach (one line, labels joined, where they coincide) and its critical pair. */
export function referenceLines(schemes) {
  const tag = (s) => (schemes.length > 1 ? ` (${s.name})` : '');
  const at = new Map(); // 'axis:value' → mark
  const add = (axis, value, label) => {
    const key = `${axis}:${value}`;
    if (at.has(key)) at.get(key).label += `; ${label}`;
    else at.set(key, { axis, value, label });
  };
  for (const s of schemes) {
    add('y', s.trainedContext, `N = ${count(s.trainedContext)}${tag(s)}`);
    if (s.reaches !== s.trainedContext) add('y', s.reaches, `reaches ${count(s.reaches)}${tag(s)}`);
    add('x', s.rotatingPairs - 0.5, `critical: ${s.rotatingPairs} pairs${tag(s)}`);
  }
  return [...at.values()];
}
