// The Length generalisation view's results table (a row per method: rank, seeds, each metric's
// mean ± sd with every seed a dot, steps, time) and the papers' claims beside what was measured.
import { controlPairs, METRICS, orderText, PAPERS, PRIMARY, rank } from '../../lab/ranking.js';
import { el } from '../../ui/dom.js';

const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : '—');

// A metric's cell: mean ± sd, then a strip with every seed's value as a dot on [0, 1].
function metricCell(m, seeds) {
  const td = el('td', 'lg-metric');
  if (m.mean === null) {
    td.textContent = 'n/a';
    return td;
  }
  td.append(el('span', 'lg-mean', m.values.length > 1 ? `${fmt(m.mean)} ± ${fmt(m.sd)}` : fmt(m.mean)));
  const strip = el('span', 'lg-dots');
  strip.setAttribute('aria-hidden', 'true');
  for (const v of m.values) {
    const dot = el('span', 'lg-dot');
    dot.style.left = `${(100 * Math.min(1, Math.max(0, v))).toFixed(1)}%`;
    strip.append(dot);
  }
  td.append(strip);
  td.title = m.values.map((v, i) => `seed ${seeds[i]}: ${fmt(v)}`).join(', ');
  return td;
}

function methodRow(g) {
  const tr = el('tr', g.trained ? '' : 'lg-untrained');
  const seeds = g.runs.map((r) => r.seed ?? r.run.result.config.seed);
  const time = g.runs.reduce((sum, r) => sum + (r.run.workerSeconds || 0), 0);
  const native = g.runs.reduce((sum, r) => sum + (r.run.nativeSeconds || 0), 0);
  tr.append(
    el('td', '', g.rank === null ? '—' : `${g.rank}${g.tie ? '=' : ''}`),
    el('td', '', g.label),
    el('td', '', String(g.runs.length)),
  );
  METRICS.forEach((m, i) => {
    const td = i > 0 && !g.trained ? el('td', '', 'did not train') : metricCell(g.metrics[m.key], seeds);
    tr.append(td);
  });
  tr.append(
    el('td', '', String(g.runs[0].run.result.config.steps)),
    el('td', '', time ? time.toFixed(1) : native ? `${native.toFixed(1)} (native)` : 'cached'),
  );
  return tr;
}

/** The table of the method groups (lab/ranking.js byMethod), ranked; `source`: whose runs. */
export function drawTable(table, groups, N, source) {
  const ranked = rank(groups);
  table.replaceChildren();
  table.hidden = !ranked.length;
  table.classList.toggle('lg-previous', source === 'previous');
  const head = el('tr');
  for (const h of ['rank', 'method', 'seeds', ...METRICS.map((m) => m.label(N)), 'steps', 'time (s)'])
    head.append(el('th', '', h));
  METRICS.forEach((m, i) => (head.children[3 + i].title = m.plain));
  head.lastChild.title = 'worker-seconds: the time the runs’ training workers spent on them, all seeds';
  table.append(head);
  for (const g of ranked) table.append(methodRow(g));
  return ranked;
}

// What was measured, in Kazemnejad et al.'s terms: the order, and whether it is theirs.
function measuredText(ranked, groups, N, source) {
  const measured = ranked.filter((g) => g.rank !== null && !g.id.includes('random'));
  if (!measured.length) return 'Train to measure.';
  const whose = { example: 'In the example', previous: 'In the previous run' }[source] ?? 'Measured here';
  const kaz = PAPERS[0].order.filter((id) => measured.some((g) => g.id === id));
  const ourOrder = measured.filter((g) => kaz.includes(g.id));
  // Agreement: every pair Kazemnejad et al. order is ordered the same way here, not tied.
  const agree =
    kaz.length > 1 &&
    kaz.every(
      (id, i) => i === 0 || ourOrder.find((g) => g.id === kaz[i - 1]).rank < ourOrder.find((g) => g.id === id).rank,
    );
  const primary = METRICS.find((m) => m.key === PRIMARY);
  const seeds = groups[0]?.runs.length ?? 0;
  return (
    `${whose} (by ${primary.label(N)}, mean over ${seeds} seed${seeds === 1 ? '' : 's'}, a model of ~0.1M parameters, ` +
    `${groups[0]?.runs[0].run.result.config.steps ?? '?'} steps; “=” a tie: means closer than their two sds): ` +
    `${orderText(ourOrder) || '—'}. ` +
    (kaz.length > 1
      ? agree
        ? 'The same order as Kazemnejad et al. for these methods.'
        : 'Not the order of Kazemnejad et al.: at this scale (a thousandfold fewer parameters, minutes of training, ' +
          'exact match near zero past N for most methods) rankings can differ or tie; the per-token accuracy shows where each breaks.'
      : '')
  );
}

/** The papers' claims, what was measured, and randomised positions against their controls. */
export function drawPapers(papers, ranked, groups, N, source) {
  papers.replaceChildren();
  papers.append(el('h3', '', 'What the papers report, and what we measured'));
  for (const paper of PAPERS) {
    const para = el('p', 'note');
    para.textContent = `${paper.cite} (${paper.setting}): ${paper.claim}.`;
    papers.append(para);
  }
  papers.append(el('p', 'note lg-ours', measuredText(ranked, groups, N, source)));
  // Randomised positions against their plain controls, same steps, on the primary metric.
  const pairs = controlPairs(groups);
  if (pairs.length) {
    const primary = METRICS.find((m) => m.key === PRIMARY);
    const para = el('p', 'note lg-controls');
    para.textContent =
      `Randomised positions against the same method on plain positions, trained for the same steps (${primary.label(N)}): ` +
      pairs
        .map(
          ({ label, randomized: r, plain: c, verdict }) =>
            `${label} ${fmt(r.mean)} ± ${fmt(r.sd)} against ${fmt(c.mean)} ± ${fmt(c.sd)} (${verdict})`,
        )
        .join('; ') +
      '.';
    papers.append(para);
  }
}
