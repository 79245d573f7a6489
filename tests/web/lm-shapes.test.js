// The numbers the Models view prints: every step's tensor shape and the parameter table.
import { describe, expect, it } from 'vitest';
import { architecture } from '../../web/src/lm/architectures.js';
import { PYTHIA_70M, SMOLLM2_135M } from './helpers/model-configs.js';
import { countFromShapes, forwardSteps, maxTokens, parameterRows, shapeText } from '../../web/src/lm/shapes.js';

const SMALL = { vocab_size: 50257, n_positions: 1024, n_embd: 768, n_layer: 12, n_head: 12, layer_norm_epsilon: 1e-5 };
const TINY = { vocab_size: 50257, n_positions: 64, n_embd: 32, n_layer: 2, n_head: 4, layer_norm_epsilon: 1e-5 };

const shapeOf = (config, T, id, position) => {
  const { steps, values } = forwardSteps(config, T, position);
  const s = steps.find((x) => x.id === id);
  return s && shapeText(s.shape, values).numeric;
};

describe('GPT-2 shapes', () => {
  it('Shapes.Gpt2SmallAtTenTokens', () => {
    // One comparison of every step's shape, so a failure lists all the steps that differ.
    const want = {
      tokens: '(10)',
      x: '(10, 768)',
      c_attn: '(10, 2304)',
      qkv: '(12, 10, 64)',
      scores: '(12, 10, 10)',
      av: '(12, 10, 64)',
      merge: '(10, 768)',
      c_fc: '(10, 3072)',
      gelu: '(10, 3072)',
      mlp_proj: '(10, 768)',
      logits: '(10, 50257)',
      next: '(50257)',
    };
    const got = Object.fromEntries(Object.keys(want).map((id) => [id, shapeOf(SMALL, 10, id)]));
    expect(got).toEqual(want);
  });

  it('Shapes.StepsFollowThePreLnOrderWithTiedLogits', () => {
    const { steps, values } = forwardSteps(SMALL, 5);
    const ids = steps.map((s) => s.id);
    const order = [
      'wte',
      'wpe',
      'x',
      'ln_1',
      'c_attn',
      'qkv',
      'scores',
      'softmax',
      'av',
      'merge',
      'attn_proj',
      'resid1',
    ];
    expect(ids.filter((id) => order.includes(id))).toEqual(order);
    expect(ids.indexOf('ln_2')).toBeGreaterThan(ids.indexOf('resid1'));
    expect(ids.indexOf('gelu')).toBe(ids.indexOf('c_fc') + 1);
    expect(ids.indexOf('ln_f')).toBeGreaterThan(ids.indexOf('resid2'));
    const logits = steps.find((s) => s.id === 'logits');
    expect(logits.label).toMatch(/wteᵀ/);
    expect(logits.weights.map(([n, s]) => `${n} ${shapeText(s, values).numeric}`)).toEqual(['wte (50257, 768)']);
    expect(steps.find((s) => s.id === 'scores').detail).toMatch(/1\/√64/); // 1/√d, not 1/√E
    expect(steps.filter((s) => s.block).map((s) => s.id)).toContain('gelu');
    expect(steps.find((s) => s.id === 'c_attn').weights.map(([, s]) => shapeText(s, values).numeric)).toEqual([
      '(768, 2304)',
      '(2304)',
    ]);
  });

  it('Shapes.PositionMethodChangesHowPositionsEnter', () => {
    const ids = (position) => forwardSteps(TINY, 7, position).steps.map((s) => s.id);
    expect(ids('learned')).toContain('wpe');
    expect(ids('sinusoidal')).toContain('pe');
    expect(ids('sinusoidal')).not.toContain('wpe');
    expect(ids('rope')).toContain('rope');
    expect(ids('rope')).not.toContain('wpe');
    expect(forwardSteps(TINY, 7, 'alibi').steps.find((s) => s.id === 'scores').label).toMatch(/ALiBi/);
    expect(forwardSteps(TINY, 7, 'none').steps.find((s) => s.id === 'x').label).toMatch(/no position/);
    expect(shapeOf(TINY, 7, 'qkv', 'rope')).toBe('(4, 7, 8)');
  });

  it('Shapes.ParameterCountsOfGpt2Small', () => {
    const c = countFromShapes(SMALL);
    expect(c.total).toBe(124439808); // the released GPT-2 small
    expect(c.wte).toBe(38597376);
    expect(c.wpe).toBe(786432);
    expect(c.block).toBe(7087872);
    expect(c.perBlock.attn_c_attn).toBe(768 * 2304 + 2304);
    expect(c.ln_f).toBe(1536);
  });

  it('Shapes.ParameterRowsShowTheCoresCounts', () => {
    const parameters = countFromShapes(TINY); // stands in for lab.gpt2Config's numbers
    const rows = parameterRows({ ...TINY, parameters });
    const by = Object.fromEntries(rows.map((r) => [r.name, r.parameters]));
    expect(by.total).toBe(parameters.total);
    expect(by['all 2 blocks']).toBe(2 * parameters.block);
    expect(by['mlp.c_fc']).toBe(32 * 128 + 128);
    // The components add up to the total.
    const leaf = rows.filter((r) => !r.subtotal);
    const perBlock = leaf.filter((r) => r.perBlock).reduce((a, r) => a + r.parameters, 0);
    expect(perBlock).toBe(by['one block']);
    const sum = leaf.filter((r) => !r.perBlock).reduce((a, r) => a + r.parameters, 0) + 2 * perBlock;
    expect(sum).toBe(by.total);
  });

  it('Shapes.TokenCapIsNPositionsOrTheViewsLimit', () => {
    expect(maxTokens(TINY)).toBe(64);
    expect(maxTokens(SMALL)).toBe(256);
  });
});

// The RoPE models' diagrams (rope-steps.js) on configs as the core returns them: SmolLM2-135M's
// shape (grouped-query, tied), a qwen3 (q/k norms, untied) and Pythia-70m's (fused qkv, a
// quarter of each head rotated, parallel residual).
describe('RoPE model shapes', () => {
  const SMOLLM2 = SMOLLM2_135M;
  const shapes = ({ steps, values }) =>
    Object.fromEntries(steps.map((s) => [s.id, shapeText(s.shape, values).numeric]));

  it('Shapes.SmolLM2ShowsGroupedQueryAttention', () => {
    const s = architecture('llama').structure(SMOLLM2, 10);
    expect(shapes(s)).toMatchObject({
      embed: '(10, 576)',
      q: '(10, 576)',
      kv: '(10, 192)',
      heads: '(9, 10, 64)',
      repeat_kv: '(9, 10, 64)',
      scores: '(9, 10, 10)',
      up: '(10, 1536)',
      logits: '(10, 49152)',
    });
    expect(s.steps.find((x) => x.id === 'repeat_kv').detail).toMatch(/H\/K = 3 query heads/);
    expect(s.steps.find((x) => x.id === 'logits').label).toMatch(/embed_tokensᵀ/); // tied
    expect(s.steps.some((x) => x.id === 'qk_norm')).toBe(false);
    expect(s.legend).toMatch(/K = key\/value heads = 3/);
    expect(s.seed003).toBe(false);
  });

  it('Shapes.Qwen3AndMistralShowTheirOwnSteps', () => {
    const qwen3 = architecture('qwen3').structure(
      { ...SMOLLM2, model_type: 'qwen3', num_key_value_heads: 9, tie_word_embeddings: false },
      4,
    );
    const ids = qwen3.steps.map((x) => x.id);
    expect(ids).toContain('qk_norm');
    expect(ids).not.toContain('repeat_kv'); // K = H: nothing to repeat
    expect(qwen3.steps.find((x) => x.id === 'logits').label).toBe('lm_head');
    const mistral = architecture('mistral').structure({ ...SMOLLM2, model_type: 'mistral', sliding_window: 4096 }, 4);
    expect(mistral.steps.find((x) => x.id === 'scores').label).toMatch(/sliding window of 4096/);
  });

  it('Shapes.Gemma3ShowsItsSandwichNormsScaleAndLocalLayers', () => {
    const gemma = architecture('gemma3_text').structure(
      {
        ...SMOLLM2,
        model_type: 'gemma3_text',
        sliding_window: 512,
        sliding_layers: 25,
        rope_local_base_freq: 10000,
        query_pre_attn_scalar: 256,
      },
      4,
    );
    const ids = gemma.steps.map((x) => x.id);
    for (const id of ['qk_norm', 'rope_local', 'post_attn_norm', 'post_ff_norm']) expect(ids).toContain(id);
    const label = (id) => gemma.steps.find((x) => x.id === id).label;
    expect(label('embed')).toBe('embed_tokens[tok] · √E');
    expect(label('norm_2')).toMatch(/^pre_feedforward_layernorm \(RMSNorm × \(1 \+ γ\)\)/);
    expect(label('act')).toMatch(/GeGLU/);
    expect(gemma.steps.find((x) => x.id === 'scores').detail).toMatch(/1\/√query_pre_attn_scalar = 1\/√256/);
  });

  it('Shapes.SmolLM3SaysWhichLayersSkipTheRotation', () => {
    const smol = architecture('smollm3').structure(
      { ...SMOLLM2, model_type: 'smollm3', num_hidden_layers: 8, no_rope_layers: [1, 1, 1, 0, 1, 1, 1, 0] },
      4,
    );
    expect(smol.steps.find((x) => x.id === 'rope').detail).toMatch(/not in the NoPE layers \(3, 7: no_rope_layers 0\)/);
    const llama = architecture('llama').structure(SMOLLM2, 4);
    expect(llama.steps.find((x) => x.id === 'rope').detail).not.toMatch(/NoPE/);
  });

  it('Shapes.PythiaRotatesAQuarterWithAParallelResidual', () => {
    const s = architecture('gpt_neox').structure(PYTHIA_70M, 7);
    expect(shapes(s)).toMatchObject({ qkv: '(7, 1536)', heads: '(8, 7, 64)', merge: '(7, 512)', up: '(7, 2048)' });
    expect(s.steps.find((x) => x.id === 'rope').detail).toMatch(/first R = 16 of d = 64/);
    expect(s.steps.some((x) => x.id === 'resid1')).toBe(false); // x + attn + mlp at once
    expect(s.steps.find((x) => x.id === 'resid2').detail).toMatch(/parallel/);
    expect(s.steps.find((x) => x.id === 'act').label).toMatch(/erf/);
    expect(architecture('gpt2').structure(TINY, 3, 'learned').seed003).toBe(true);
  });
});
