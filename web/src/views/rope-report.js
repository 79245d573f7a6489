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

/**
 * The critical pair, in the words the text and the plot share: the first pair that does not
 * complete a turn within N, and its first dimension ("pair 35 (dimension 70)"), or none.
 */
export function criticalText(s) {
  const pairs = s.invFreq.length;
  if (s.rotatingPairs >= pairs) return `none (all ${pairs} pairs turn within N)`;
  return `pair ${s.rotatingPairs} (dimension ${2 * s.rotatingPairs})`;
}

/** Why the reach differs from the config's max_position_embeddings, or '' when they agree. */
function reachNote(s, maxPositions) {
  if (!maxPositions || s.reaches === maxPositions) return '';
  const how = s.scaling === 'none' ? 'N' : `N × ${formatExact(s.factor)}`;
  return s.reaches < maxPositions
    ? ` — fewer than max_position_embeddings ${count(maxPositions)}: the config allows longer texts than the rotation was stretched for (${how}); past ${count(s.reaches)} the angles are again ones never seen in training`
    : ` — more than max_position_embeddings ${count(maxPositions)}: the scaling reaches further than the config's own limit`;
}

/**
 * One RoPE base's facts, as the lines of its summary. maxPositions: the config's
 * max_position_embeddings, against which the reach is explained.
 */
export function schemeFacts(s, maxPositions) {
  const pairs = s.invFreq.length;
  return [
    `rotary dims R = ${s.rotaryDim} (${pairs} pairs); trained context N = ${count(s.trainedContext)} (from ${s.trainedContextFrom})`,
    `${s.rotatingPairs} of ${pairs} pairs complete a turn within N; critical: ${criticalText(s)}`,
    (s.scaling === 'none'
      ? `no scaling: reaches N = ${count(s.reaches)} positions`
      : `${s.scaling} × ${formatExact(s.factor)} reaches ${count(s.reaches)} positions; attention factor ${formatExact(s.attentionFactor)}`) +
      reachNote(s, maxPositions),
    `its layers see query–key distances up to ${count(s.maxDistance)} (the reach, or a sliding or chunked layer's window, less one: a query at position p sees keys back to p − ${count(s.maxDistance)})`,
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
    if (s.rotatingPairs < s.invFreq.length) add('x', s.rotatingPairs - 0.5, `critical: ${criticalText(s)}${tag(s)}`);
  }
  return [...at.values()];
}
