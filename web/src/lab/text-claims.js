// What the papers say about training short and testing long on text, and what a set of measured
// curves says about each claim: the sentences the text experiment's view prints are made here
// from the numbers it draws, never written beside them.

/**
 * A separate PyTorch run of this kind of model (the lab issue's reference: width 128, 2 layers,
 * trained context 64, about 1900 steps, on Debian's 300 KB of licence texts): held-out loss in
 * nats per byte at contexts 64, 256 and 1024.
 */
export const REFERENCE = {
  setting:
    'a PyTorch run of the same kind of model (width 128, 2 layers, trained context 64, ~1900 steps, 300 KB of licence texts)',
  contexts: [64, 256, 1024],
  rows: [
    ['alibi', 'ALiBi', [1.57, 1.56, 1.56]],
    ['sinusoidal', 'sinusoidal', [1.64, 3.95, 4.52]],
    ['rope', 'RoPE', [1.6, 2.66, 3.8]],
    ['t5', 'T5 bias', [1.61, 2.81, 4.02]],
    ['none', 'NoPE (trains slower)', [2.15, 2.81, 3.1]],
    ['rope+ntk', 'RoPE + NTK', [1.6, 2.2, 3.4]],
    ['rope+yarn', 'RoPE + YaRN', [1.6, 2.03, 3.18]],
    ['rope+linear', 'RoPE + linear (PI, not fine-tuned)', [1.6, 4.77, 5.23]],
  ],
};

/** Past this ratio of its loss at the trained context, a curve is said to rise, not stay flat. */
export const FLAT = 1.05;

const fmt = (x) => x.toFixed(2);
const last = (a) => a[a.length - 1];

/**
 * @typedef {{ contexts: number[], N: number, losses: Map<string, (number|null)[]>,
 *   scaling: Record<string, (number|null)[]> | null, names: (id: string) => string }} Measured
 *   the shown curves: loss per byte by context per method, RoPE's per scaling (or null)
 * @typedef {{ cite: string, claim: string, verdict: 'agrees' | 'disagrees' | 'untested', said: string }} Finding
 */

/** Press et al.'s Figure 1: ALiBi stays flat past the trained context while the others rise. */
function flatness(m) {
  const claim =
    'past the training length ALiBi’s loss stays flat, while sinusoidal, rotary and T5-bias models get worse';
  const cite = 'Press et al. 2022, Figure 1';
  const ids = ['alibi', 'sinusoidal', 'rope', 't5'].filter((id) => m.losses.has(id));
  const longest = last(m.contexts);
  if (!m.losses.has('alibi') || ids.length < 2 || longest <= m.N) {
    return { cite, claim, verdict: 'untested', said: 'Train ALiBi and at least one of the others, tested past N.' };
  }
  const ratio = (id) => {
    const l = m.losses.get(id);
    return l[0] === null || last(l) === null ? null : last(l) / l[0];
  };
  const parts = ids.map((id) => {
    const l = m.losses.get(id);
    return `${m.names(id)} ${fmt(l[0])} → ${fmt(last(l))}`;
  });
  const alibiFlat = ratio('alibi') <= FLAT;
  const othersRise = ids.filter((id) => id !== 'alibi').every((id) => ratio(id) > FLAT);
  return {
    cite,
    claim,
    verdict: alibiFlat && othersRise ? 'agrees' : 'disagrees',
    said:
      `From context ${m.N} to ${longest}: ${parts.join('; ')} ` +
      `(flat: within ${Math.round((FLAT - 1) * 100)}% of the loss at ${m.N}).`,
  };
}

/** The same figure read at the longest context: ALiBi has the lowest loss there. */
function alibiBest(m) {
  const cite = 'Press et al. 2022, Figure 1';
  const claim = 'at the longest context ALiBi has the lowest loss of the methods';
  const longest = last(m.contexts);
  const rows = [...m.losses].filter(([, l]) => last(l) !== null).map(([id, l]) => [id, last(l)]);
  if (!m.losses.has('alibi') || rows.length < 2) {
    return { cite, claim, verdict: 'untested', said: 'Train ALiBi and another method.' };
  }
  rows.sort((a, b) => a[1] - b[1]);
  return {
    cite,
    claim,
    verdict: rows[0][0] === 'alibi' ? 'agrees' : 'disagrees',
    said: `At context ${longest}: ${rows.map(([id, x]) => `${m.names(id)} ${fmt(x)}`).join(' < ')}.`,
  };
}

/** YaRN's ordering without fine-tuning: the stretchings beat the unscaled model, linear is worst. */
function scalings(m) {
  const cite = 'Peng et al. 2023 (YaRN), without fine-tuning';
  const claim =
    'NTK-aware and YaRN scaling improve on the unscaled RoPE model past its context; linear interpolation (PI) does worst';
  const rope = m.losses.get('rope');
  if (!m.scaling || !rope || last(m.contexts) <= m.N) {
    return { cite, claim, verdict: 'untested', said: 'Train RoPE, tested past N.' };
  }
  const rows = [['none', last(rope)], ...Object.entries(m.scaling).map(([k, l]) => [k, last(l)])];
  const at = Object.fromEntries(rows);
  const holds = at.ntk < at.none && at.yarn < at.none && rows.every(([k, x]) => k === 'linear' || x < at.linear);
  rows.sort((a, b) => a[1] - b[1]);
  return {
    cite,
    claim,
    verdict: holds ? 'agrees' : 'disagrees',
    said:
      `RoPE at context ${last(m.contexts)}, by scaling (factor ${last(m.contexts) / m.N}): ` +
      rows.map(([k, x]) => `${k === 'none' ? 'none (as trained)' : k} ${fmt(x)}`).join(' < ') +
      '.',
  };
}

/** Every claim with its verdict on the measured curves `m`. @returns {Finding[]} */
export const findings = (m) => [flatness(m), alibiBest(m), scalings(m)];
