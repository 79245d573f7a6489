// The Attention & masks view: typed words through seeded multi-head attention, one head
// stage by stage (scores → + bias → mask → softmax → output), every head's weights, and the
// entropy per head. Clicking (or Enter on) a mask cell toggles it into a custom mask.
import { decodeMask, encodeMask } from '../state/mask-bits.js';
import { METHOD_INFO } from '../content/methods.js';
import { BIASES, EMBEDDING_METHODS, ROTATIONS } from '../state/methods.js';
import { CMAPS } from '../state/registry.js';
import { createIntro, defineView } from './kit.js';

// The method lists are the core's table's (state/methods.js); these only word some choices
// differently from content/methods.js's labels. A method added to the table with multi-head
// attention's bias bit is offered as a score bias under its label there.
const PE_LABELS = { learned: 'learned (seeded)', none: 'none (NoPE)' };
const BIAS_LABELS = { none: 'none', t5: 'T5 buckets' };
const label = (labels, method) => labels[method] ?? METHOD_INFO[method].label;

const SPECS = [
  { key: 'att.text', label: 'text (one token per word; [PAD] marks padding)', kind: 'text' },
  {
    key: 'att.input',
    label: 'x from',
    kind: 'select',
    options: [
      ['tokens', 'token embedding + position'],
      ['position', 'position alone'],
    ],
  },
  {
    key: 'att.pe',
    label: 'absolute encoding added',
    kind: 'select',
    options: EMBEDDING_METHODS.map((m) => [m, label(PE_LABELS, m)]),
  },
  {
    key: 'att.rope',
    label: 'rotation of q, k',
    kind: 'select',
    options: [['none', 'none'], ...ROTATIONS.map((m) => [m, METHOD_INFO[m].name])],
  },
  {
    key: 'att.bias',
    label: 'score bias',
    kind: 'select',
    // 'none' (no bias) first, then the table's score biases in its order.
    options: ['none', ...BIASES.filter((m) => m !== 'none')].map((m) => [m, label(BIAS_LABELS, m)]),
  },
  {
    key: 'att.mask',
    label: 'mask',
    kind: 'select',
    options: [
      ['none', 'none'],
      ['causal', 'causal'],
      ['window', 'causal sliding window W'],
      ['custom', 'custom (click cells)'],
    ],
  },
  { key: 'att.window', label: 'window W', kind: 'number', show: (s) => s['att.mask'] === 'window' },
  { key: 'att.pad', label: 'hide [PAD] keys (key padding)', kind: 'checkbox' },
  { key: 'att.D', label: 'model width D', kind: 'number', step: 2 },
  { key: 'att.H', label: 'heads H', kind: 'number' },
  { key: 'att.head', label: 'head shown', kind: 'number' },
  { key: 'att.seed', label: 'seed (projections)', kind: 'number' },
  { key: 'att.cmap', label: 'weights colour map', kind: 'select', options: CMAPS.map((c) => [c, c]) },
];

const STAGES = [
  ['scores', 'Raw scores q·k/√d (hidden keys: −∞)'],
  ['bias', 'Position bias (alone)'],
  ['mask', 'Mask (alone): 0 or −∞ — click a cell to toggle'],
  ['logits', 'Scores + bias + mask'],
  ['weights', 'Softmax weights'],
  ['output', 'Head output (weights · V)'],
];

const TEX = String.raw`\text{out}_h = \operatorname{softmax}\!\Big(\frac{Q_h K_h^{\top}}{\sqrt{d}} + B_h + M\Big) V_h,\qquad M_{ij} = \begin{cases} 0 & \text{key } j \text{ visible to query } i \\ -\infty & \text{hidden} \end{cases}`;

const NOTE =
  'Q, K, V come from seeded random projections of the whole width D, split into H heads of d = D/H. ' +
  'A mask entry is 0 where a key is visible and −∞ where it is hidden. A query that sees no key gets zero weights, never NaN. ' +
  'One call of the wasm core gives the projections, the rotation (a rotation method of the core’s table; a decaying one also scales queries by ζᵢ^(e/s) and keys by ζᵢ^(−e/s)), the bias, the scores the softmax took, the weights and each head’s weights · V; the mask drawn is the core’s own rule (attentionMask). Only the entropy is computed on the page.';

const SOURCE =
  'seed 003’s module shares one d×d projection across heads and divides by √embed_size (both wrong), and its look-ahead prose has the mask’s 0 and 1 the wrong way round.';

export default defineView('attention', {
  controls: SPECS,
  build(shell, { store }) {
    createIntro(shell, { title: null, tex: TEX, note: NOTE, source: SOURCE });

    let last = null; // the last drawn result, for mask clicks
    const onMaskClick = (row, col) => {
      if (!last) return;
      const s = store.get();
      const L = last.tokens.length;
      const hidden =
        s['att.mask'] === 'custom'
          ? (decodeMask(s['att.custom'], L) ?? new Uint8Array(L * L))
          : Uint8Array.from(last.baseHidden);
      hidden[row * L + col] ^= 1;
      store.set({ 'att.mask': 'custom', 'att.custom': encodeMask(hidden, L) }, { source: 'control' });
    };

    const stageGrid = document.createElement('div');
    stageGrid.className = 'grid-3';
    shell.plots.append(stageGrid);
    const stages = Object.fromEntries(
      STAGES.map(([key, title]) => [
        key,
        shell.heatmap(
          key,
          {
            title,
            xTitle: key === 'output' ? 'dimension' : 'key',
            yTitle: 'query',
            height: 300,
            onCellClick: key === 'mask' ? onMaskClick : undefined,
          },
          stageGrid,
        ),
      ]),
    );
    const headsTitle = document.createElement('h3');
    headsTitle.textContent = 'Weights of every head';
    const headGrid = document.createElement('div');
    headGrid.className = 'grid-4';
    shell.plots.append(headsTitle, headGrid);
    let heads = [];
    const entropy = shell.bars('entropy', {
      title: 'Attention entropy per head (mean over queries, nats)',
      yTitle: 'entropy (nats)',
    });

    function ensureHeads(H) {
      if (heads.length === H) return;
      for (const h of heads) h.destroy();
      heads = Array.from({ length: H }, (_, h) =>
        shell.heatmap(
          'heads',
          { title: `Head ${h}`, xTitle: 'key', yTitle: 'query', height: 200, compact: true },
          headGrid,
        ),
      );
    }

    return {
      draw(r, p) {
        last = r;
        const labels = r.tokens;
        for (const [name, hm] of Object.entries(stages)) {
          const m = r.heatmaps[name];
          hm.update({ ...m, yLabels: labels, xLabels: name === 'output' ? undefined : labels });
        }
        stages.bias.figure.setNote(p.bias === 'none' ? 'No position bias: all zeros.' : '');
        stages.output.figure.setTitle(`Head ${p.head} output (weights · V), d = ${r.headWidth}`);
        ensureHeads(p.H);
        heads.forEach((hm, h) => hm.update({ ...r.heatmaps[`head${h}`], xLabels: labels, yLabels: labels }));
        entropy.update({ labels: heads.map((_, h) => `head ${h}`), values: r.entropy });
      },
    };
  },
});
