// The seed gallery: one card per seed figure or claim, the preset that reproduces it, and
// what the seed gets wrong. Presets are partial states (defaults fill the rest).

export const SEED_CARDS = [
  {
    seed: '000',
    title: 'Out of scope sequences (50 vs 100, D = 64)',
    shows:
      'Two heatmaps of sinusoidal encodings for lengths 50 and 100, said to be “similar thanks to periodicity”, which would let a model generalise to unseen lengths.',
    wrong:
      'Its code applies sin/cos to alternate columns of the (L, D/2) angle matrix: 32 columns, no sin/cos pairs. Periodicity does not make unseen positions repeat seen ones (wavelengths reach 2π·10 000); sinusoidal models extrapolate poorly.',
    presets: [
      {
        label: 'Open 50 vs 100 at D = 64',
        state: { view: 'extrapolation', 'ext.N': 50, 'ext.L': 100, 'ext.D': 64, 'ext.scaling': 'none' },
      },
      {
        label: 'Test the claim: train each method on lengths ≤ 8, test to 32',
        state: { view: 'length-generalisation', 'lg.task': 'copy', 'lg.N': 8 },
      },
    ],
  },
  {
    seed: '001',
    title: 'Sinusoidal table, vectors and cosine similarity (t5-small sizes)',
    shows:
      'The 300 × 512 sinusoidal table in Blues, the vectors of positions 0, 1, 2, 10, 50, …, 299, and the cosine-similarity matrix of all positions.',
    wrong:
      '“T5 uses sinusoidal positional encodings” is false: T5 has no position table; it adds learned per-head biases indexed by relative-position buckets.',
    presets: [
      {
        label: 'Table and vectors',
        state: {
          view: 'encodings',
          'enc.L': 300,
          'enc.D': 512,
          'enc.cmap': 'Blues',
          'enc.pos': [0, 1, 2, 10, 50, 100, 150, 200, 250, 299],
          'enc.dims': [0, 1, 100, 511],
        },
      },
      { label: 'Cosine similarity', state: { view: 'similarity', 'sim.L': 300, 'sim.D': 512, 'sim.cmap': 'Blues' } },
      {
        label: 'What T5 really uses',
        state: {
          view: 'encodings',
          'enc.method': 't5',
          'enc.L': 64,
          'enc.cmap': 'viridis',
          'enc.pos': [0, 32, 63],
          'enc.dims': [0, 32],
        },
      },
    ],
  },
  {
    seed: '002',
    title: 'Sinusoidal table 50 × 512 (viridis) and the offset claim',
    shows:
      'pcolormesh of the 50 × 512 table, and the claim that PE(pos + k) is a linear function of PE(pos) for any fixed k.',
    wrong:
      'The figure is right; the claim is stated without the matrix. PosLab builds M_k and shows the residual at rounding level. (Its formula numbers dimensions 2i / 2i+1 with i the pair index, matching the code.)',
    presets: [
      { label: 'The 50 × 512 table', state: { view: 'encodings' } },
      { label: 'M_k and the residual', state: { view: 'offset', 'off.D': 16, 'off.k': 3, 'off.p': 10 } },
    ],
  },
  {
    seed: '003',
    title: 'GPT-2 structure, self-attention, masks',
    shows:
      'A from-scratch GPT-2 with multi-head self-attention, a worked positional-encoding example for “Hello, how are you?”, and a look-ahead mask.',
    wrong:
      'The worked example writes sin for both members of a pair (the odd rows are cos). The module shares one head_dim × head_dim projection across heads and scales by √embed_size instead of √d_head. The mask prose has 0 and 1 the wrong way round. LayerNorm there divides by std + eps with the unbiased std.',
    presets: [
      {
        label: 'Causal mask, 8 heads, D = 512',
        state: { view: 'attention', 'att.text': 'Hello, how are you?', 'att.D': 512, 'att.H': 8, 'att.mask': 'causal' },
      },
      {
        label: 'The table of its example (D = 4)',
        state: { view: 'encodings', 'enc.L': 4, 'enc.D': 4, 'enc.pos': [0, 1, 2, 3], 'enc.dims': [0, 1, 2, 3] },
      },
    ],
  },
  {
    seed: '004',
    title: 'Four methods side by side (L = 10, D = 16)',
    shows:
      'Sinusoidal, learned, relative and rotary encodings with “when to use” notes and printed outputs for L = 10, D = 16.',
    wrong:
      'The sinusoidal loop gives the cosine exponent (i+1)/d instead of sharing the pair’s frequency. apply_rope multiplies by [sin, cos] elementwise: not a rotation. The relative version indexes an unclipped random (2L − 1) table.',
    presets: [
      {
        label: 'Sinusoidal 10 × 16',
        state: { view: 'encodings', 'enc.L': 10, 'enc.D': 16, 'enc.pos': [0, 1, 2, 9], 'enc.dims': [0, 1, 2, 3] },
      },
      {
        label: 'RoPE (a real rotation)',
        state: {
          view: 'encodings',
          'enc.method': 'rope',
          'enc.L': 10,
          'enc.D': 16,
          'enc.pos': [0, 1, 2, 9],
          'enc.dims': [0, 8],
        },
      },
      {
        label: 'Shaw relative, unclipped K = 9',
        state: {
          view: 'encodings',
          'enc.method': 'shaw',
          'enc.L': 10,
          'enc.clip': 9,
          'enc.pos': [0, 5, 9],
          'enc.dims': [0, 9],
        },
      },
      {
        label: 'Learned 10 × 16',
        state: {
          view: 'encodings',
          'enc.method': 'learned',
          'enc.L': 10,
          'enc.D': 16,
          'enc.pos': [0, 1, 9],
          'enc.dims': [0, 1],
        },
      },
    ],
  },
];
