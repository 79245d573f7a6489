// The paper claims the lab tests, one row each: the claim, the paper's number at its scale, the
// lab's (quoted as docs/lab.md's measured tables give them), the command that reproduces it and
// the verdict. Plain data, the one source of docs/claims.md (scripts/generators/claims.mjs,
// `npm run generate`) and of the lab views' Claims panel (views/claims-panel.js): when a table
// of lab.md changes, change its row here and regenerate.

/** The verdicts a row may carry: its label on the page and what it means. */
export const VERDICTS = {
  reproduces: { label: 'reproduces', meaning: 'the lab measures what the paper claims, at its own smaller scale' },
  partly: {
    label: 'reproduces in part',
    meaning: 'some of the claim holds here and some does not; the row says which',
  },
  'does not': {
    label: 'does not reproduce',
    meaning: 'the lab does not measure what the paper claims; the row says why',
  },
  'not yet measured': {
    label: 'not yet measured',
    meaning: 'the lab has no run of it yet; the command is the run that would measure it',
  },
};

/** The lab views a row can belong to, by registry name, with their titles (the registry's). */
export const CLAIM_VIEWS = {
  'length-generalisation': 'Length generalisation',
  'text-lab': 'Train short, test long',
};

/**
 * @typedef {{ id: string, paper: string, title: string, short: string, claim: string,
 *   paperNumber: string, labNumber: string, seeds: string, command: string[],
 *   verdict: keyof typeof VERDICTS, why: string, views: (keyof typeof CLAIM_VIEWS)[], docs: string }} Claim
 *   paper: "Author et al. year"; short: a few words naming the claim; command: the lines to run,
 *   in order; docs: the anchor of docs/lab.md that holds the lab's number.
 */

/** Kazemnejad et al.'s paper and claim, which two rows test (on two tasks). */
const KAZEMNEJAD_2023 = {
  paper: 'Kazemnejad et al. 2023',
  title: 'The Impact of Positional Encoding on Length Generalization in Transformers',
  claim:
    'In decoder-only transformers, no positional encoding (NoPE) length-generalises best, ahead of T5 bias, ALiBi, ' +
    'RoPE and learned absolute positions, in that order.',
  paperNumber:
    'Mean reciprocal rank NoPE 0.69, T5 bias 0.55, ALiBi 0.50, RoPE 0.33, learned absolute 0.22 (decoder-only, ' +
    '~107M parameters, 12 layers, 40K steps; trained on lengths ≤ 20, tested to 40).',
};

/** Barbero et al.'s paper and claim, which two rows test (on two tasks). */
const BARBERO_2025 = {
  paper: 'Barbero et al. 2025',
  title: 'Round and Round We Go! What makes Rotary Positional Encodings useful?',
  claim:
    'RoPE’s lowest frequencies act as semantic channels that are not robust over long contexts; p-RoPE, which ' +
    'stops rotating the lowest fraction of frequencies, trained into Gemma 2B, improves it.',
  paperNumber:
    'Gemma 2B trained from scratch on Wiki and FlanV2 at 8K context, base 10 000: p-RoPE keeps RoPE’s validation ' +
    'perplexity or lowers it (their Table 2).',
};

/** @type {Claim[]} */
export const CLAIMS = [
  {
    id: 'press-2022-text',
    paper: 'Press et al. 2022',
    title: 'Train Short, Test Long: Attention with Linear Biases Enables Input Length Extrapolation',
    short: 'ALiBi holds its loss past the trained length on text',
    claim:
      'A language model with ALiBi trained on short inputs keeps its perplexity on longer ones, while sinusoidal, ' +
      'rotary and T5-bias models get worse past the training length.',
    paperNumber:
      'Figure 1: language models on WikiText-103 trained at 512 or 1024 tokens and tested to 16K; ALiBi’s perplexity ' +
      'holds past the training length, sinusoidal, rotary and T5 bias degrade. Abstract: a 1.3B-parameter ALiBi model ' +
      'trained at 1024 tokens reaches at 2048 the perplexity of a sinusoidal model trained at 2048.',
    labNumber:
      'Held-out nats per byte at N = 64 and at 16N = 1024 (byte-level text, 2 layers, width 64, 2500 steps): ' +
      'ALiBi 1.46 ± 0.01 → 1.45 ± 0.01 (1.45, 1.44, 1.47 by seed); sinusoidal 1.60 ± 0.02 → 3.85 ± 0.08, ' +
      'RoPE 1.34 ± 0.01 → 3.83 ± 0.20, T5 bias 1.35 ± 0.01 → 3.31 ± 0.06.',
    seeds: '0, 1, 2',
    command: [
      'for s in 0 1 2; do bench/lab/text.py --seed $s --out build/text-seed$s -- --threads 1; done',
      'bench/lab/text_summary.py build/text-seed0 build/text-seed1 build/text-seed2',
    ],
    verdict: 'reproduces',
    why:
      'ALiBi is flat past N in every seed and lower than sinusoidal, RoPE and T5 bias at 1024, as in Figure 1, at ' +
      'the lab’s scale: 64-byte windows of a 2-layer byte model, not 512–1024 tokens of a large one. Methods Press et ' +
      'al. did not test go lower still at 1024: KERPLE 1.30 ± 0.00 and FoX 1.23 ± 0.01.',
    views: ['text-lab'],
    docs: 'train-short-test-long-on-real-text',
  },
  {
    id: 'kazemnejad-2023-copy',
    ...KAZEMNEJAD_2023,
    short: 'NoPE > T5 bias > ALiBi > RoPE > learned, on copy',
    labNumber:
      'Exact match on 9..16 (copy, N = 8, 2 layers, width 64, 2500 steps): ALiBi 0.20 ± 0.02, NoPE 0.08 ± 0.01, ' +
      'T5 bias 0.00 ± 0.00, RoPE 0.00 ± 0.00, learned 0.00 ± 0.00; answer tokens 9..16: 0.72 ± 0.03, 0.33 ± 0.06, ' +
      '0.53 ± 0.05, 0.18 ± 0.02, 0.21 ± 0.05. All five train (0.98–1.00 in distribution). By the rule: ALiBi > NoPE ' +
      '> learned = RoPE = T5 bias.',
    seeds: '0, 1, 2',
    command: ['bench/lab/seeds.py -- --steps 2500'],
    verdict: 'partly',
    why:
      'Agrees: NoPE is ahead of RoPE and learned, and ALiBi ahead of RoPE. Differs: ALiBi is ahead of NoPE, and T5 ' +
      'bias gets no whole answer right past N (its answer tokens are right half the time), so it ties with RoPE and ' +
      'learned. The lab’s model is 2 layers of width 64 against ~107M parameters, trained 2500 steps against 40K, at ' +
      'N = 8; past N most methods get no whole answer right, so the order rests on the two that do.',
    views: ['length-generalisation'],
    docs: 'measured-every-method-over-three-seeds',
  },
  {
    id: 'kazemnejad-2023-sort',
    ...KAZEMNEJAD_2023,
    short: 'NoPE generalises best, on sort',
    labNumber:
      'Exact match on 9..16 (sort, N = 8, 2 layers, width 64, 2000 steps): NoPE 0.99 ± 0.01 (0.60 ± 0.07 on 17..32), ' +
      'ALiBi 0.41 ± 0.04, T5 bias 0.21 ± 0.18, RoPE 0.02 ± 0.01, learned 0.00 ± 0.00; every method trains ' +
      '(0.97–1.00 in distribution).',
    seeds: '0, 1, 2',
    command: ['bench/lab/seeds.py --task sort'],
    verdict: 'partly',
    why:
      'Agrees: NoPE generalises almost perfectly and is first by the rule (the next, FIRE, has 0.62 ± 0.27): sorted ' +
      'digits do not depend on where they sat, and a model without positions cannot use the wrong ones; ALiBi is ' +
      'ahead of RoPE and learned. Differs: T5 bias’s seeds spread so far (0.21 ± 0.18) that it ties ALiBi, where ' +
      'the paper puts it ahead. The scale is the copy row’s.',
    views: ['length-generalisation'],
    docs: 'fair-defaults',
  },
  {
    id: 'ruoss-2023-copy',
    paper: 'Ruoss et al. 2023',
    title: 'Randomized Positional Encodings Boost Length Generalization of Transformers',
    short: 'randomised positions lift length generalisation, on copy',
    claim:
      'Training on randomised positions, an ordered sample from a range far longer than the training lengths, lets ' +
      'transformers generalise to unseen lengths, whatever their positional encoding.',
    paperNumber:
      '6000 models over 15 algorithmic tasks: test accuracy on unseen lengths up 12.0 % on average (encoder, 5 ' +
      'layers, width 64, 8 heads; lengths ≤ 40, positions sampled from up to 2048, tested to 100 and beyond).',
    labNumber:
      'Exact match on 9..16, plain → randomised (copy, N = 8, MAX 256, 2 layers, width 64, 2500 steps): learned ' +
      '0.00 ± 0.00 → 0.13 ± 0.03, RoPE 0.00 ± 0.00 → 0.20 ± 0.06, xPos 0.00 ± 0.00 → 0.19 ± 0.05, T5 bias ' +
      '0.00 ± 0.00 → 0.17 ± 0.07 (better); ALiBi 0.20 ± 0.02 → 0.09 ± 0.01, FIRE 0.28 ± 0.15 → 0.11 ± 0.00 ' +
      '(worse); sinusoidal on randomised positions did not train (0.60 ± 0.40 in distribution).',
    seeds: '0, 1, 2',
    command: [
      'bench/lab/seeds.py -- --steps 2500  # the plain controls',
      'bench/lab/seeds.py --methods learned,sinusoidal,rope,xpos,alibi,t5,fire --out build/bench-lab-random \\',
      '  -- --randomized-positions 256 --threads 1',
    ],
    verdict: 'partly',
    why:
      'Randomising lifts every method that reads positions by their index or their offset on a table (learned, ' +
      'RoPE, xPos, T5 bias) from 0 to 0.13–0.20 at an equal budget, as Ruoss et al. report, but costs the two ' +
      'smooth score biases about half their exact match: ALiBi and FIRE read distances, and random gaps make those ' +
      'larger than the ones they are tested on. A 2-layer decoder at N = 8 with positions from 256, not their ' +
      'encoder at lengths ≤ 40 with positions from 2048.',
    views: ['length-generalisation'],
    docs: 'measured-every-method-over-three-seeds',
  },
  {
    id: 'barbero-2025-text',
    ...BARBERO_2025,
    short: 'p-RoPE against RoPE, on text',
    labNumber:
      'Held-out nats per byte at N = 64 and at 1024 (byte-level text, 2 layers, width 64, head width 16, 2500 ' +
      'steps): p-RoPE (p = 0.75) 1.33 ± 0.01 → 3.85 ± 0.19 against RoPE 1.34 ± 0.01 → 3.83 ± 0.20, a tie at every ' +
      'context; p-RoPE (p = 0.25) 1.42 ± 0.01 → 3.53 ± 0.07, below RoPE at 1024 by the rule.',
    seeds: '0, 1, 2',
    command: [
      'for s in 0 1 2; do bench/lab/text.py --methods kerple,p-rope --seed $s --out build/lab47-text-seed$s -- --threads 1; done',
      'for s in 0 1 2; do bench/lab/text.py --methods p-rope --seed $s --out build/lab47-text-p025-seed$s -- --threads 1 --keep-fraction 0.25; done',
      'bench/lab/text_summary.py build/lab47-text-seed0 build/lab47-text-seed1 build/lab47-text-seed2',
    ],
    verdict: 'partly',
    why:
      'At the default p = 0.75 p-RoPE is RoPE here: with a head width of 16 its zeroed pairs are the two lowest of ' +
      'eight, wavelengths of about 6 300 and 19 900 positions, which a 64-byte window barely turns. At p = 0.25 it ' +
      'rises less past N but fits N worse (1.42 against 1.34). Barbero et al. argue at scale, on the semantic role ' +
      'of low frequencies; a 2-layer byte model is not where that shows.',
    views: ['text-lab'],
    docs: 'kerple-and-p-rope',
  },
  {
    id: 'barbero-2025-copy',
    ...BARBERO_2025,
    short: 'p-RoPE against RoPE, on copy',
    labNumber:
      'Exact match on 9..16 (copy, N = 8, 2 layers, width 64, 2500 steps): p-RoPE (p = 0.75) 0.00 ± 0.00, ' +
      'p-RoPE (p = 0.25) 0.00 ± 0.00, RoPE 0.00 ± 0.00; answer tokens 9..16: 0.20 ± 0.03, 0.15 ± 0.02, 0.18 ± 0.02; ' +
      'in distribution 0.96 ± 0.07, 0.94 ± 0.10, 0.98 ± 0.03.',
    seeds: '0, 1, 2',
    command: [
      'bench/lab/seeds.py --methods kerple,p-rope --out build/lab47-copy',
      'bench/lab/seeds.py --methods p-rope --out build/lab47-copy-p025 -- --keep-fraction 0.25',
    ],
    verdict: 'does not',
    why:
      'Switching off RoPE’s low frequencies does not help on copy: p-RoPE, at either p, gets no whole answer right ' +
      'past N, as RoPE. The paper’s claim is about language models at scale; this row asks whether it carries over ' +
      'to length generalisation on a small task, where the zeroed pairs barely turn within the trained lengths.',
    views: ['length-generalisation'],
    docs: 'kerple-and-p-rope',
  },
  {
    id: 'cho-2024-coupling',
    paper: 'Cho et al. 2024',
    title: 'Position Coupling: Improving Length Generalization of Arithmetic Transformers Using Task Structure',
    short: 'position coupling on addition',
    claim:
      'Giving the digits of one significance in both operands and the sum the same position (position coupling) ' +
      'lets a transformer trained on short additions add far longer ones.',
    paperNumber:
      'A 1-layer, 4-head model of width 1024 trained on 1–30-digit additions (batch 1000, 50000 steps): ' +
      'near-perfect exact match up to 200 digits, 6.67× the trained length.',
    labNumber:
      'Learned positions coupled as the authors’ code places them, 1 layer × 128, N = 10, 15000 steps × 32: exact ' +
      'match 1..10 1.00 ± 0.00, 11..20 0.19 ± 0.17, answer tokens 11..20 0.88 ± 0.09; longest length with exact ' +
      'match ≥ 0.9 by seed 10, 11, 13 (1.13 ± 0.15 × N).',
    seeds: '0, 1, 2',
    command: [
      'poslab sweep run bench/lab/plans/addition-coupled.json --out DIR --jobs 2',
      'poslab sweep merge DIR -o summary.json',
      'bench/lab/reach.py DIR',
    ],
    verdict: 'partly',
    why:
      'Coupling makes addition train where plain positions do not, and the digits past N stay right (answer tokens ' +
      '0.88), but the model ends the sum wrongly past N + 1 (its EOS), so whole answers reach 1.1× N, not 6.67×. ' +
      'The plain control trains only with its operands zero-padded to N digits (1.00 ± 0.00 in distribution) and ' +
      'then stays at 0.00 ± 0.00 past N. The lab’s model is 8 times narrower and sees about 100 times fewer ' +
      'sequences than the paper’s.',
    views: ['length-generalisation'],
    docs: 'addition-the-model-learns-coupling-and-abacus',
  },
  {
    id: 'mcleish-2024-abacus',
    paper: 'McLeish et al. 2024',
    title: 'Transformers Can Do Arithmetic with the Right Embeddings',
    short: 'Abacus embeddings on addition',
    claim:
      'Abacus embeddings, which encode each digit’s place within its number, let a transformer trained on ' +
      '20-digit additions solve 100-digit ones.',
    paperNumber:
      'Trained on operands of up to 20 digits (16 layers of width 1024, one GPU for a day): up to 99 % accuracy on ' +
      '100-digit addition, 5× the trained length.',
    labNumber:
      'Abacus (--position abacus, offsets up to 20) on a NoPE model of 2 layers × 128, N = 10, 15000 steps × 32: ' +
      'exact match 1..10 0.76 ± 0.42, 11..20 0.10 ± 0.08, answer tokens 11..20 0.83 ± 0.07; longest length with ' +
      'exact match ≥ 0.9 by seed 10, 1, 11.',
    seeds: '0, 1, 2',
    command: [
      'poslab sweep run bench/lab/plans/addition-abacus.json --out DIR --jobs 2',
      'poslab sweep merge DIR -o summary.json',
      'bench/lab/reach.py DIR',
    ],
    verdict: 'partly',
    why:
      'Two seeds add in distribution and one or two digits past it; the third gets every digit right but the first. ' +
      'The answer’s first digit is read at SEP, which has no place and cannot know the random offset that moved the ' +
      'operands’ places: the authors’ 16 layers can work it out, the lab’s two did not. Digits past N are mostly ' +
      'right (0.83), whole answers not.',
    views: ['length-generalisation'],
    docs: 'addition-the-model-learns-coupling-and-abacus',
  },
  {
    id: 'zhou-2024-addition',
    paper: 'Zhou et al. 2024',
    title: 'Transformers Can Achieve Length Generalization But Not Robustly',
    short: 'FIRE, randomised positions, reversed digits and index hints on addition',
    claim:
      'With FIRE positions, randomised positions, reversed digits and index hints together, a standard ' +
      'transformer trained on 40-digit additions adds 100-digit ones, though not robustly across seeds.',
    paperNumber:
      'Trained on up to 40 digits, generalises to 100-digit addition: 2.5× the trained length; how far it ' +
      'generalises varies much with the random seed and the order of the training data.',
    labNumber:
      'FIRE on randomised positions (MAX 256) with 64 index hints, 2 layers × 128, N = 10, 10000 steps × 32: exact ' +
      'match 1..10 0.70 ± 0.52, 11..20 0.17 ± 0.20, answer tokens 11..20 0.81 ± 0.18; longest length with exact ' +
      'match ≥ 0.9 by seed 11, 13, 1.',
    seeds: '0, 1, 2',
    command: [
      'poslab sweep run bench/lab/plans/addition-zhou.json --out DIR --jobs 2',
      'poslab sweep merge DIR -o summary.json',
      'bench/lab/reach.py DIR',
    ],
    verdict: 'partly',
    why:
      'The recipe generalises past N on two seeds of three (1.1× and 1.3× N; past N the answer’s first token is ' +
      'right, written in its hint) and the third seed never trains: “not robustly”, as the paper says, but at 1.3× ' +
      'rather than 2.5×, with a model of 2 layers rather than 25.',
    views: ['length-generalisation'],
    docs: 'index-hints',
  },
];
