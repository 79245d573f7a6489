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

const AXIS_NAMES = { t: 'time', h: 'height', w: 'width' };

/** Indices as runs of a constant step: "0–15", "1, 4, …, 58", "7". */
export function indexRuns(indices) {
  const runs = [];
  for (let k = 0; k < indices.length;) {
    const from = indices[k];
    const step = k + 1 < indices.length ? indices[k + 1] - from : 1;
    let to = k;
    while (to + 1 < indices.length && indices[to + 1] - indices[to] === step) to += 1;
    const n = to - k + 1;
    const last = indices[to];
    if (n === 1) runs.push(`${from}`);
    else if (step === 1) runs.push(`${from}–${last}`);
    else if (n === 2) runs.push(`${from}, ${last}`);
    else runs.push(`${from}, ${from + step}, …, ${last}`);
    k = to + 1;
  }
  return runs.join('; ');
}

/** M-RoPE's pairs per axis, one line each: "time: pairs 0–15 (16)". */
export function axisLines(axes) {
  return ['t', 'h', 'w'].map((axis) => {
    const pairs = [...axes].flatMap((a, i) => (a === axis ? [i] : []));
    return `${AXIS_NAMES[axis]}: ${pairs.length ? `pairs ${indexRuns(pairs)}` : 'no pair'} (${pairs.length})`;
  });
}

/** DeepSeek's latent attention in words; `scheme` is the rotation (its attention factor). */
export function mlaFacts(mla, scheme) {
  const m = formatExact(mla.softmaxMscale);
  return [
    `queries and keys ${mla.qkHeadDim} dims per head: ${mla.qkNopeHeadDim} without rotation (qk_nope_head_dim), then ${mla.qkRopeHeadDim} rotated (qk_rope_head_dim, the R below); values ${mla.vHeadDim} (v_head_dim)`,
    `keys and values come up from a ${mla.kvLoraRank}-dim latent (kv_lora_rank), the rotated key part straight from the hidden state, one for all heads; queries ${mla.qLoraRank ? `from a ${mla.qLoraRank}-dim latent (q_lora_rank)` : 'projected directly (q_lora_rank null)'}`,
    mla.interleaved
      ? 'each rotated pair is two adjacent dims (2i, 2i + 1) (rope_interleave)'
      : 'each rotated pair is dims (i, i + R/2) (rotate_half)',
    `softmax scale ${mla.qkHeadDim}^−½ × m² = ${formatExact(mla.softmaxScale)}, m = ${mla.mscaleAllDim ? `0.1 × mscale_all_dim ${formatExact(mla.mscaleAllDim)} × ln(factor) + 1 = ${m}` : `${m} (no mscale_all_dim)`}; cos and sin carry the attention factor ${formatExact(scheme ? scheme.attentionFactor : 1)} apart`,
  ];
}

/** Llama 4's NoPE-layer query scale in words. */
export function temperatureText(t) {
  const last = t.positions.length - 1;
  return `NoPE layers multiply the query at position p by 1 + ${formatExact(t.attnScale)} × ln(1 + ⌊(p + 1) / ${count(t.floorScale)}⌋) (attn_temperature_tuning): 1 up to position ${count(Math.max(0, Math.ceil(t.floorScale) - 2))}, ${formatExact(t.scales[last])} at ${count(t.positions[last])}`;
}
