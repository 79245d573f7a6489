// What the Position lens view reads off a lens report (docs/lens.md) beside its plots: the
// shift check's verdict, the role counts, a head's scores against the thresholds, and what the
// spectrum marks (the pairs that turn within the trained context, the pairs a scaling changes).
// Pure functions (no DOM), shown through textContent only.
import { BANDS, ROLES, roleOf } from '../content/lens-roles.js';
import { formatShort } from '../plots/format.js';

/** A RoPE model's logits may move by this much of the largest |logit| under a shift (rounding). */
export const SHIFT_TOLERANCE = 1e-4;

/**
 * The shift check as a badge: 'pass' (invariance expected and held), 'warn' (expected and
 * broken), 'info' (not expected: the model reads absolute positions, or scales by length) or
 * 'none' (no check in the report).
 * @returns {{ kind: 'pass' | 'warn' | 'info' | 'none', badge: string, text: string }}
 */
export function shiftVerdict(shift) {
  if (!shift) return { kind: 'none', badge: 'not checked', text: 'This report has no shift check.' };
  const moved =
    `Every position moved by k = ${shift.k}: the logits changed by at most ${formatShort(shift.max_abs_logit_change)} ` +
    `(largest |logit| ${formatShort(shift.max_abs_logit)}; relative change ${formatShort(shift.relative_change)}).`;
  if (!shift.invariant_expected) {
    return {
      kind: 'info',
      badge: 'not expected invariant',
      text: `${moved} This model reads absolute positions, or scales its rotation by the length, so its logits may move.`,
    };
  }
  if (shift.relative_change < SHIFT_TOLERANCE) {
    return {
      kind: 'pass',
      badge: 'invariant ✓',
      text: `${moved} It sees only the distance i − j, and its logits held within ${SHIFT_TOLERANCE} of the largest.`,
    };
  }
  return {
    kind: 'warn',
    badge: 'moved ⚠',
    text: `${moved} It should see only the distance i − j, yet its logits moved by more than ${SHIFT_TOLERANCE} of the largest.`,
  };
}

/** "local 6 · broad 1 · previous token 1": the roles a report found, in the lens's order. */
export function roleCountsText(counts) {
  const parts = ROLES.filter((r) => counts?.[r.role] > 0).map((r) => `${r.label} ${counts[r.role]}`);
  return parts.length ? parts.join(' · ') : 'no heads';
}

/** A head's row of scores: [{ label, value, threshold, reached }] in the lens's order. */
export function scoreRows(head, thresholds) {
  return ROLES.filter((r) => r.score).map((r) => ({
    role: r.role,
    label: r.label,
    value: head.scores[r.score],
    threshold: thresholds[r.score],
    reached: head.scores[r.score] >= thresholds[r.score],
  }));
}

/** The head of `report` at layer, head (undefined when there is none). */
export const headAt = (report, layer, head) => report?.heads.find((h) => h.layer === layer && h.head === head);

/**
 * The bands' legend from a report's rope_bands: the turning share that makes a head positional
 * (positional_share: positional_threshold of the way from an even spread, uniform_share, to all
 * of its energy on the turning pairs) and the counts.
 */
export function bandsText(b) {
  const { positional: p, semantic: s } = BANDS;
  return (
    `${p.mark} ${p.label}: ${p.text}, a turning share ≥ ${formatShort(b.positional_share)} ` +
    `(${formatShort(b.positional_threshold)} of the way from an even spread, ${formatShort(b.uniform_share)}, to all of it); ` +
    `${s.mark} ${s.label}: ${s.text}. ${b.positional_heads} positional, ${b.semantic_heads} semantic.`
  );
}

/** A grid cell's text and its name for screen readers. */
export function cellText(head) {
  const r = roleOf(head.role);
  const band = head.bands ? BANDS[head.bands] : null;
  return {
    text: band ? `${r.letter}${band.mark}` : r.letter,
    name: `layer ${head.layer}, head ${head.head}: ${r.label}${band ? `, ${band.label}` : ''}`,
  };
}

/**
 * What the spectrum of `report` shows: one label per rotation pair ('i · λ', λ its wavelength
 * in positions) then 'unrotated', how many leading pairs turn within the trained context N
 * (the marker goes after them), and, with `other` (a report of the same model with a scaling),
 * the pairs whose inv_freq differ. A model whose layers turn at different bases (Gemma 3's
 * sliding layers) reports each layer's pairs in rope_bands.layers: `layer` picks them, and
 * `ownBase` says they are not the model's first list. null when the report has no bands (not
 * a RoPE model, or no pair energy).
 * @returns {{ labels: string[], turning: number, context: number, changed: number[], ownBase: boolean } | null}
 */
export function spectrumPlan(report, other = null, layer = 0) {
  const bands = bandsOfLayer(report, layer);
  if (!bands) return null;
  const P = bands.wavelength.length;
  const labels = Array.from(bands.wavelength, (w, i) => `${i} · ${formatShort(w)}`);
  labels.push('unrotated');
  let turning = 0;
  for (let i = 0; i < P; i++) if (bands.wavelength[i] <= bands.trained_context) turning++;
  const changed = [];
  const theirs = bandsOfLayer(other, layer)?.inv_freq;
  if (theirs && theirs.length === P) {
    for (let i = 0; i < P; i++) {
      const a = bands.inv_freq[i];
      const b = theirs[i];
      if (Math.abs(a - b) > 1e-9 * Math.max(Math.abs(a), Math.abs(b))) changed.push(i);
    }
  }
  const ownBase = bands !== report.rope_bands && bands.inv_freq.some((f, i) => f !== report.rope_bands.inv_freq[i]);
  return { labels, turning, context: bands.trained_context, changed, ownBase };
}

/** rope_bands with the pairs `layer` turns at: its entry of rope_bands.layers when there is one. */
function bandsOfLayer(report, layer) {
  const bands = report?.rope_bands;
  const own = bands?.layers?.[layer];
  return own ? { ...bands, ...own } : bands;
}

/** Why a report has no spectrum, in words. */
export function noSpectrumText(r) {
  if (!r.rope)
    return 'This model has no rotation: it learns its positions, so it has no rotation pairs to split a score into.';
  return 'This report has no score energy per rotation pair.';
}
