// What the Surgery view reads off a surgery report (surgery.json's keys, docs/surgery.md) beside
// its plots: each intervention's bar label and colour (by kind), the kinds' legend, the
// figure's CSV, and the sentences under the figures. Pure functions (no DOM), shown through
// textContent only.
import { roleOf } from '../content/lens-roles.js';
import { quote } from '../export/csv.js';
import { formatExact, formatShort } from '../plots/format.js';

/**
 * Each kind of intervention: its colour (Okabe & Ito's colour-blind-safe set, plots/palette.js)
 * and its name in the legend, in the order the sweeps list them.
 */
export const KINDS = {
  zero_pairs: { colour: '#0072b2', label: 'rotation pairs zeroed' },
  keep_top: { colour: '#56b4e9', label: 'only the fastest pairs kept' },
  nope_layer: { colour: '#e69f00', label: 'layer made position-blind (NoPE)' },
  nope_head: { colour: '#d55e00', label: 'head made position-blind (NoPE)' },
  ablate_head: { colour: '#cc79a7', label: 'head removed (its output zeroed)' },
  base: { colour: '#009e73', label: 'another rotation base' },
  single: { colour: '#999999', label: 'your intervention' },
};
const kindOf = (kind) => KINDS[kind] ?? KINDS.single;

const percent = (f) => `${formatShort(100 * f)} %`;
const pairs = ([a, b]) => (b - a === 1 ? `pair ${a}` : `pairs ${a}–${b - 1}`);

/** The lens's role of a head sweep's bar, in words ('' without one). */
export function roleText(lens) {
  if (!lens) return '';
  return `${roleOf(lens.role).label}${lens.bands ? `, ${lens.bands}` : ''}`;
}

/** A bar's label: what was done, in words, and a head's role ('pairs 0–1 zeroed', 'head 1.2 NoPE · local'). */
export const barLabel = (x) => `${actionLabel(x)}${x.lens ? ` · ${roleText(x.lens)}` : ''}`;

/** What an intervention does, in words ('pairs 0–1 zeroed', 'head 1.2 NoPE'). */
export function actionLabel(x) {
  const q = x.params ?? {};
  switch (x.kind) {
    case 'zero_pairs':
      return `${(q.rope_zero_pairs ?? []).map(pairs).join(', ')} zeroed`;
    case 'keep_top':
      if (q.fraction >= 1) return 'all pairs kept';
      return q.fraction > 0 ? `fastest ${percent(q.fraction)} kept` : 'no pair kept';
    case 'nope_layer':
      return `layer ${q.layer} NoPE`;
    case 'nope_head':
      return `head ${q.layer}.${q.head} NoPE`;
    case 'ablate_head':
      return `head ${q.layer}.${q.head} removed`;
    case 'base':
      return `base ${formatShort(q.rope_base ?? q.rope_local_base)}`;
    default:
      return x.name;
  }
}

/**
 * The bars: labels (a head's role on a second line, so the labels fit beside the bars on a
 * phone), mean changes, their intervals and colours, in the report's order.
 */
export function barsOf(report) {
  const list = report.interventions;
  return {
    labels: list.map((x) => (x.lens ? [actionLabel(x), roleText(x.lens)] : actionLabel(x))),
    values: list.map((x) => x.delta_mean),
    low: list.map((x) => x.delta_ci[0]),
    high: list.map((x) => x.delta_ci[1]),
    colors: list.map((x) => kindOf(x.kind).colour),
  };
}

/** The kinds a report's bars have, for the legend: [{ kind, colour, label }]. */
export const legendOf = (report) =>
  Object.entries(KINDS)
    .filter(([kind]) => report.interventions.some((x) => x.kind === kind))
    .map(([kind, k]) => ({ kind, ...k }));

const signed = (v) => (v > 0 ? `+${formatShort(v)}` : formatShort(v));

/** A bar's readout: its label, its mean change with the interval, within and past the context, its lens scores. */
export function barText(x) {
  const [lo, hi] = x.delta_ci;
  const parts = [
    `${barLabel(x)}: ${signed(x.delta_mean)} nats (95 % interval ${formatShort(lo)} to ${formatShort(hi)})`,
  ];
  if (x.delta_within_context !== null && x.delta_within_context !== undefined) {
    parts.push(`within the trained context ${signed(x.delta_within_context)}`);
  }
  if (x.delta_past_context !== null && x.delta_past_context !== undefined) {
    parts.push(`past it ${signed(x.delta_past_context)}`);
  }
  if (x.lens?.turning_share !== null && x.lens?.turning_share !== undefined) {
    parts.push(`turning share ${formatShort(x.lens.turning_share)}`);
  }
  return parts.join('; ');
}

const csvCell = (v) => (v === null || v === undefined ? '' : Number.isFinite(v) ? formatExact(v) : String(v));

/** The bars as CSV: one row per intervention, its change, interval and lens role. */
export function deltasCsv(report) {
  const head =
    'intervention,kind,loss_mean,delta_mean,delta_ci_low,delta_ci_high,delta_within_context,delta_past_context,role';
  const rows = report.interventions.map((x) =>
    [
      quote(actionLabel(x)),
      x.kind,
      ...[x.loss_mean, x.delta_mean, x.delta_ci[0], x.delta_ci[1], x.delta_within_context, x.delta_past_context].map(
        csvCell,
      ),
      quote(roleText(x.lens)),
    ].join(','),
  );
  return `${[head, ...rows].join('\n')}\n`;
}

/** The report as surgery.json writes it (typed arrays as plain lists). */
export const reportJson = (report) => JSON.stringify(report, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v), 1);

/** What the sweep shows, in a sentence for under the bars. */
export function deltasNote(report) {
  const b = report.bootstrap ?? {};
  const unit = b.unit === 'windows' ? `the ${report.windows} windows` : 'the positions';
  const reused = report.prefix_reused ? ', the unmodified layers’ pass reused' : '';
  return (
    `Each bar: the mean next-token loss with the intervention minus without (${formatShort(report.baseline.loss_mean)} nats), ` +
    `over ${report.windows} window${report.windows === 1 ? '' : 's'} of ${report.window} tokens; the whisker, its 95 % interval ` +
    `(${b.resamples ?? 0} bootstrap resamples of ${unit}, seed ${b.seed ?? 0}). ` +
    `${report.forwards} passes, ${formatShort(report.forward_equivalents)} whole forward passes of work${reused}. ` +
    'Click a bar to draw it below.' +
    rolesNote(report)
  );
}

// A heads sweep's roles are the lens's on the text's first min(window, N, 4096) tokens
// (sweep_lens): inside the trained context, where the model's heads do what it learnt.
function rolesNote(report) {
  if (report.sweep !== 'heads') return '';
  const N = report.trained_context;
  const tokens = Math.min(report.window, N || Infinity, 4096);
  return ` Each head’s role is the lens’s on the text’s first ${tokens} tokens${N ? ', inside the trained context' : ''}.`;
}

/**
 * The first layer an intervention changes (params: surgery.json's): every layer for a change of
 * the rotation itself (pairs, bases), else the lowest layer or head it names. A map of a head
 * in an earlier layer is the unmodified one.
 */
export function firstChangedLayer(params = {}) {
  if (params.rope_zero_pairs?.length || params.rope_base || params.rope_local_base) return 0;
  const layers = [
    ...(params.nope_layers ?? []),
    ...(params.nope_heads ?? []).map(([l]) => l),
    ...(params.ablate_heads ?? []).map(([l]) => l),
  ];
  return layers.length ? Math.min(...layers) : Infinity;
}

/** Why a sweep has no bars, or why the picked bar is not the one asked for ('' when it is). */
export function shownText(report, show, shown) {
  const n = report.interventions.length;
  if (shown < 0) return 'This sweep has no interventions.';
  if (show > n) return `This sweep has ${n} bars, not ${show}: the figures show the largest change.`;
  return '';
}
