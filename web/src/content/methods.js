// Per method of the core's table (state/position-methods.js): a name, a short label for the
// lab's legends, its colour there, the formula (KaTeX, as PosLab computes it), a short "when to
// use" note after seed 004's documentation, and where a seed gets the method wrong, the "Source"
// note. Colours come from the colour-blind-safe palette and are fixed by method, not by place
// in a list: a method keeps its colour when others are added or dropped, and the families most
// often compared side by side (learned, RoPE, ALiBi, NoPE) get the four most distinct hues.
import { OKABE_ITO, TOL_MUTED_EXTRA } from '../plots/palette.js';

const [BLUE, ORANGE, GREEN, VERMILLION, SKY, PURPLE, YELLOW, GREY] = OKABE_ITO;
const [WINE, TEAL, INDIGO, OLIVE, ROSE] = TOL_MUTED_EXTRA;

export const METHOD_INFO = {
  sinusoidal: {
    name: 'Sinusoidal (Vaswani et al. 2017)',
    label: 'sinusoidal',
    colour: SKY,
    tex: String.raw`PE_{p,2i} = \sin(p\,\omega_i),\quad PE_{p,2i+1} = \cos(p\,\omega_i),\quad \omega_i = b^{-2i/D},\ i \in [0, D/2)`,
    texConcat: String.raw`PE_{p,i} = \sin(p\,\omega_i),\quad PE_{p,i+D/2} = \cos(p\,\omega_i),\quad \omega_i = b^{-2i/D},\ i \in [0, D/2)`,
    use: 'Fixed, no parameters, added to the token embeddings. Any position can be computed, but a model trained on short inputs does not become good at longer ones: unseen positions are new vectors (see “Out-of-scope lengths”). Both members of a pair share one frequency, which is what makes PE(p+k) a rotation of PE(p) (see “Offset matrix”).',
    source: 'seed 004’s loop gives the cosine its own exponent (i+1)/d: wrong.',
  },
  learned: {
    name: 'Learned absolute (GPT-2, BERT)',
    label: 'learned absolute',
    colour: BLUE,
    tex: String.raw`PE_p = E_{p,:},\qquad E \in \mathbb{R}^{N_{\max}\times D}\ \text{trained (shown: seeded } \mathcal{N}(0, 0.02^2)\text{, untrained)}`,
    use:
      'One trained vector per position up to a maximum length (GPT-2: 1024). Flexible, but a position beyond the table has no vector at all, and rare late positions get little training. ' +
      'Untrained, the table is noise: structure appears only through training.',
  },
  rope: {
    name: 'Rotary (RoPE, Su et al. RoFormer)',
    label: 'RoPE',
    colour: VERMILLION,
    tex: String.raw`\begin{pmatrix} x'_{a} \\ x'_{b} \end{pmatrix} = \begin{pmatrix} \cos p\theta_i & -\sin p\theta_i \\ \sin p\theta_i & \cos p\theta_i \end{pmatrix} \begin{pmatrix} x_{a} \\ x_{b} \end{pmatrix},\quad \theta_i = b^{-2i/D},\quad (a,b) = \begin{cases} (i,\ i+D/2) & \text{neox} \\ (2i,\ 2i+1) & \text{gptj} \end{cases}`,
    use:
      'Rotates q and k (not added to x), so q_m·k_n depends only on m − n. The default of most current LLMs (LLaMA, Mistral, Qwen, GPT-NeoX); longer contexts through scaling (linear, NTK, YaRN, llama3: see “Out-of-scope lengths”). ' +
      'Shown here: RoPE applied to the unit vector with 1 at the first member of every pair, so each pair reads (cos pθᵢ, sin pθᵢ).',
    source:
      'seed 004’s apply_rope multiplies x elementwise by [sin, cos]: not a rotation, it changes norms and loses the relative property.',
  },
  'p-rope': {
    name: 'p-RoPE (Barbero et al. 2025)',
    label: 'p-RoPE',
    colour: TEAL,
    tex: String.raw`\theta_i = \begin{cases} b^{-2i/R} & i < \lfloor p\,R/2 \rfloor \\ 0 & \text{else} \end{cases}\qquad (p = 1:\ \text{RoPE},\ p = 0:\ \text{no rotation})`,
    use:
      'RoPE with its lowest frequencies switched off: those pairs are not rotated, so they carry meaning without position, while the kept high frequencies build positional heads (Barbero et al. 2025, “Round and Round We Go!”). The kept frequencies are RoPE’s own, not respaced. ' +
      'Shown here: the unit vector rotated, as for RoPE; the zeroed pairs stay (1, 0) at every position.',
  },
  xpos: {
    name: 'xPos (Sun et al. 2023)',
    label: 'xPos',
    colour: YELLOW,
    tex: String.raw`q'_{n} = \zeta_i^{\,e_n/s}\,R_{n\theta_i}\,q_{n},\quad k'_{m} = \zeta_i^{-e_m/s}\,R_{m\theta_i}\,k_{m},\quad \zeta_i = \frac{2i + 0.4D}{1.4D},\quad s = 512,\quad e_p = p - \lceil L/2 \rceil`,
    use:
      'RoPE (gptj pairs) times a per-pair decay, as torchscale’s XPOS: q_n·k_m carries ζᵢ^((n−m)/s), so far keys weigh less and long inputs extrapolate better. Positions are centred on the sequence so that ζ^e neither underflows nor overflows early. ' +
      'Shown here: the queries’ side on the unit vector, each pair (cos pθᵢ, sin pθᵢ)·ζᵢ^(e/s).',
  },
  alibi: {
    name: 'ALiBi (Press et al. 2022)',
    label: 'ALiBi',
    colour: GREEN,
    tex: String.raw`\text{score}_{h,i,j} = \frac{q_i \cdot k_j}{\sqrt{d}} - m_h\,|i-j|,\qquad m_h = 2^{-8h/H},\ h = 1..H`,
    use:
      'No position vectors at all: each head subtracts a linear distance penalty from the scores. Trains short and still works on longer inputs (BLOOM, MPT). For H not a power of two the slopes interleave two geometric series, as in the reference. ' +
      'Drawn: the bias of one head (query × key); the causal mask, not the bias, hides the future.',
  },
  t5: {
    name: 'T5 relative buckets (Raffel et al. 2020)',
    label: 'T5 bias',
    colour: PURPLE,
    tex: String.raw`\text{score}_{h,i,j} = q_i \cdot k_j + b_{h}\big[\operatorname{bucket}(j - i)\big],\quad \operatorname{bucket}(r) = \begin{cases} |r| & |r| < n_e \\ \min\!\Big(n_b - 1,\ n_e + \Big\lfloor \dfrac{\ln(|r|/n_e)}{\ln(\text{max\_dist}/n_e)}\,(n_b - n_e) \Big\rfloor\Big) & \text{else} \end{cases}`,
    use: 'A learned scalar per head and bucket of relative distance; exact buckets for short distances, logarithmic ones up to max_distance, one bucket beyond. Bidirectional (encoder) splits the buckets by sign.',
    source:
      'seed 001 says T5 uses sinusoidal encodings: it does not, it uses these buckets (its embedding has no position table at all).',
  },
  kerple: {
    name: 'KERPLE, logarithmic (Chi et al. 2022)',
    label: 'KERPLE',
    colour: WINE,
    tex: String.raw`\text{score}_{h,i,j} = \frac{q_i \cdot k_j}{\sqrt{d}} - r_{1,h}\,\log\!\big(1 + r_{2,h}\,|i-j|\big),\qquad r_{1,h},\ r_{2,h} > 0\ \text{learned}`,
    use:
      'A kernelised relative bias: like ALiBi a penalty that grows with distance, but logarithmically and with two learned parameters per head (the authors’ ParallelKerpleLog; r₁ starts U(0, 2), r₂ U(0, 1), both kept ≥ 0.01). ' +
      'Drawn: one head’s bias at its seeded starting values (query × key).',
  },
  shaw: {
    name: 'Shaw relative (Shaw et al. 2018)',
    label: 'Shaw',
    tex: String.raw`e_{ij} = \frac{x_i W^Q\,\big(x_j W^K + a^K_{ij}\big)^{\!\top}}{\sqrt{d}},\qquad a^K_{ij} = w^K_{\operatorname{clip}(j-i,\,-K,\,K)}`,
    use: 'Learned vectors for relative distances clipped to ±K, added to keys (and values). Drawn: the clipped index clip(j − i, −K, K) + K into the table. Clipping is what lets it run longer than it was trained.',
    source:
      'seed 004’s version indexes a random table of size 2L − 1 without clipping, which ties the model to one length.',
  },
  fire: {
    name: 'FIRE (Li et al. 2024)',
    label: 'FIRE',
    colour: ORANGE,
    tex: String.raw`\text{score}_{h,i,j} \mathrel{+}= f_\theta\!\Big(\frac{\psi(i-j)}{\psi(\max(L,\,i+1))}\Big)_h,\quad \psi(x) = \log(c\,x + 1)`,
    use: 'A small MLP per layer maps the log-scaled distance, normalised by the query position, to one bias per head; c and L are learned. Trainer only: the lab draws a trained model’s bias.',
  },
  cope: {
    name: 'CoPE, contextual positions (Golovneva et al. 2024)',
    label: 'CoPE',
    colour: INDIGO,
    tex: String.raw`\text{score}_{h,i,j} \mathrel{+}= q_i\cdot e\big(p_{ij}\big),\quad p_{ij} = \min\!\Big(\sum_{t=j}^{i} \sigma\big(\tfrac{q_i\cdot k_t}{\sqrt{d}}\big),\ P-1\Big),\quad e \text{ interpolated between integers}`,
    use: 'Positions from content: each query gates the keys it sees and counts the gates from a key up to itself, so a position can count words, digits or whatever the gates pick, not tokens. A learned embedding per integer position (up to npos_max, 64 by default) is interpolated at that count. On a NoPE model; trainer only (the authors’ CoPE module, embeddings starting at 0).',
  },
  fox: {
    name: 'FoX, Forgetting Transformer (Lin et al. 2025)',
    label: 'FoX',
    colour: OLIVE,
    tex: String.raw`\text{score}_{h,i,j} \mathrel{+}= \sum_{t=j+1}^{i} \log f_{h,t},\qquad f_{h,t} = \sigma\big(w_h\cdot x_t + b_h\big)`,
    use: 'A forget gate per head and token, learned from the token itself: a key fades by every gate between it and the query, a decay the model sets per token rather than ALiBi’s fixed slope. On a NoPE model; trainer only (the authors’ “full” forget gate, w drawn 𝒩(0, 0.02²); each head’s b starts at a decay time from 2 to 64 tokens, b = −log(expm1(1/T)), the authors’ start for their data-independent gates, where b = 0 left the heads too local to learn padded addition).',
  },
  abacus: {
    name: 'Abacus (McLeish et al. 2024)',
    label: 'Abacus',
    colour: ROSE,
    tex: String.raw`x_t = s\,e(\text{token}_t) + w_{\,k + r_t},\qquad r_t = \text{the digit's place in its number (1, 2, \dots; 0 off digits)},\quad k \sim U\{0..K\} \text{ in training, } 0 \text{ in tests}`,
    use: 'A learned table indexed not by token position but by a digit’s place within its number, numbers written least-significant digit first, so the digits of both operands and of the sum that share a significance share a row. Training moves every place of a sequence by one random offset k ≤ K (the authors’ max_k, 99), so rows past the trained lengths are trained too. On a NoPE model; trainer only, synthetic tasks only.',
  },
  none: {
    name: 'NoPE (no positional encoding)',
    label: 'NoPE',
    colour: GREY,
    tex: String.raw`x_p = \text{token embedding only}\qquad (PE_p = 0)`,
    use: 'No position signal at all: with no mask, attention is permutation-equivariant and cannot tell order. A causal mask alone still lets a decoder infer position to some degree (Haviv et al. 2022; Kazemnejad et al. 2023).',
  },
};
