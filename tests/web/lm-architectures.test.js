// What the Models view knows of each architecture (lm/architectures.js): the config table's
// rows with GPT-NeoX's keys, the tokenizer kind, layers/heads and context, and config.json's
// model_type accepted or refused by name.
import { describe, expect, it } from 'vitest';
import {
  architecture,
  architectureOfConfigJson,
  neoxPositionNote,
  parameterTotal,
  tokenizerKindOf,
} from '../../web/src/lm/architectures.js';
import { maxTokens } from '../../web/src/lm/shapes.js';
import { TINY_NEOX_CONFIG } from '../helpers/tiny-models.js';
import { PYTHIA_70M, SMOLLM2_135M } from './helpers/model-configs.js';

const GPT2 = { vocab_size: 50257, n_positions: 1024, n_embd: 768, n_layer: 12, n_head: 12, layer_norm_epsilon: 1e-5 };

describe('Models view architectures', () => {
  it('Architectures.NeoxConfigRowsUseItsOwnKeys', () => {
    const rows = Object.fromEntries(
      architecture('gpt_neox')
        .configRows(PYTHIA_70M)
        .map((r) => [r.key, r.value]),
    );
    expect(rows).toEqual({
      vocab_size: 50304,
      max_position_embeddings: 2048,
      hidden_size: 512,
      num_hidden_layers: 6,
      num_attention_heads: 8,
      head: 64,
      intermediate_size: 2048,
      rotary_pct: 0.25,
      rotary_dim: 16,
      rotary_emb_base: 10000,
      use_parallel_residual: true,
      layer_norm_eps: 1e-5,
    });
    // The core's own rotary width wins over the formula when it reports one.
    const reported = architecture('gpt_neox').configRows({ ...PYTHIA_70M, rope: { rotaryDim: 18 } });
    expect(reported.find((r) => r.key === 'rotary_dim').value).toBe(18);
    expect(neoxPositionNote(PYTHIA_70M)).toMatch(
      /RoPE on the first 16 of each head’s 64 dims \(rotary_pct 0\.25, base 10000\)/,
    );
  });

  it('Architectures.Gpt2RowsAreTheViewsFormerTable', () => {
    expect(
      architecture('gpt2')
        .configRows(GPT2)
        .map((r) => [r.key, r.value]),
    ).toEqual([
      ['vocab_size', 50257],
      ['n_positions', 1024],
      ['n_embd', 768],
      ['n_layer', 12],
      ['n_head', 12],
      ['head', 64],
      ['layer_norm_epsilon', 1e-5],
    ]);
    expect(architecture('gpt2').positionSwap).toBeNull();
    expect(architecture('gpt_neox').positionSwap).toMatch(/does not apply/);
  });

  it('Architectures.TokenizerLayersHeadsAndContextByKind', () => {
    expect(tokenizerKindOf('gpt2')).toBe('tiktoken-gpt2');
    expect(tokenizerKindOf('gpt_neox')).toBe('tokenizer-json');
    const neox = architecture('gpt_neox');
    expect([neox.layers(PYTHIA_70M), neox.heads(PYTHIA_70M), neox.context(PYTHIA_70M)]).toEqual([6, 8, 2048]);
    expect([maxTokens(PYTHIA_70M), maxTokens(TINY_NEOX_CONFIG), maxTokens(GPT2)]).toEqual([256, 64, 256]);
    expect(parameterTotal(PYTHIA_70M)).toBe(70426624);
    expect(parameterTotal({ parameters: { total: 124439808 } })).toBe(124439808);
  });

  it('Architectures.ConfigModelTypeIsAcceptedOrRefusedByName', () => {
    expect(architectureOfConfigJson({ model_type: 'gpt_neox' })).toBe('gpt_neox');
    expect(architectureOfConfigJson({ model_type: 'gpt2' })).toBe('gpt2');
    expect(architectureOfConfigJson({ model_type: 'qwen3' })).toBe('qwen3');
    expect(architectureOfConfigJson({ model_type: 'gemma3_text' })).toBe('gemma3_text');
    expect(architectureOfConfigJson({ model_type: 'smollm3' })).toBe('smollm3');
    expect(architectureOfConfigJson({ n_embd: 32 })).toBeNull();
    expect(() => architectureOfConfigJson({ model_type: 'gemma2' }, 'my/config.json')).toThrow(
      /^my\/config\.json: model_type "gemma2" is not a model this view runs \(gpt2, gpt_neox, llama, mistral, qwen2, qwen3, gemma3_text, smollm3\)$/,
    );
    expect(() => architecture('gemma2')).toThrow(
      /this view runs gpt2, gpt_neox, llama, mistral, qwen2, qwen3, gemma3_text and smollm3 models/,
    );
  });

  // The Llama members are one description: loader, tokenizer, RoPE, rows from the core's config.
  it('Architectures.LlamaFamilyIsOneDescription', () => {
    const SMOL = SMOLLM2_135M;
    for (const member of ['llama', 'mistral', 'qwen2', 'qwen3', 'gemma3_text', 'smollm3']) {
      const a = architecture(member);
      expect([a.name, a.loader, a.tokenizer, a.rope]).toEqual(['Llama', 'llamaLoader', 'tokenizer-json', true]);
    }
    expect([architecture('gpt2').loader, architecture('gpt2').rope]).toEqual(['gpt2Loader', false]);
    expect([architecture('gpt_neox').loader, architecture('gpt_neox').rope]).toEqual(['gptNeoxLoader', true]);
    const rows = Object.fromEntries(
      architecture('llama')
        .configRows(SMOL)
        .map((r) => [r.key, r.value]),
    );
    expect(rows.head_dim).toBe(64);
    expect(rows.num_key_value_heads).toBe(3);
    expect(rows.rope_scaling).toBe('none');
    const note = architecture('llama').positionNote({
      ...SMOL,
      rope: { scaling: 'yarn', factor: 4, originalLength: 8192 },
      sliding_window: 4096,
    });
    expect(note).toMatch(/RoPE on all 64 dims of each head \(base 100000, scaling yarn × 4 \(N = 8192\)\)/);
    expect(note).toMatch(/3 key\/value heads, each shared by 3 query heads/);
    expect(note).toMatch(/sliding window of 4096/);
    expect(maxTokens(SMOL)).toBe(256);
    // Gemma 3: its own rows and its local layers in the note; longrope named as such.
    const GEMMA = {
      ...SMOL,
      model_type: 'gemma3_text',
      sliding_window: 512,
      sliding_layers: 25,
      num_hidden_layers: 30,
      rope_local_base_freq: 10000,
      query_pre_attn_scalar: 256,
      rope: { scaling: 'linear', factor: 8, originalLength: 16384 },
    };
    const gemmaRows = Object.fromEntries(
      architecture('gemma3_text')
        .configRows(GEMMA)
        .map((r) => [r.key, r.value]),
    );
    expect(gemmaRows).toMatchObject({ sliding_layers: 25, rope_local_base_freq: 10000, query_pre_attn_scalar: 256 });
    expect(rows.query_pre_attn_scalar).toBeUndefined();
    expect(architecture('gemma3_text').positionNote(GEMMA)).toMatch(
      /scaling linear × 8 .*25 of 30 layers attend in a window of 512 and turn at base 10000, unscaled/,
    );
    // SmolLM3: its NoPE layers (no_rope_layers 0, as the core reports them) a row and in the note.
    const SMOLLM3 = { ...SMOL, model_type: 'smollm3', num_hidden_layers: 8, no_rope_layers: [1, 1, 1, 0, 1, 1, 1, 0] };
    const smolRows = Object.fromEntries(
      architecture('smollm3')
        .configRows(SMOLLM3)
        .map((r) => [r.key, r.value]),
    );
    expect(smolRows.no_rope_layers).toBe('3 and 7');
    expect(rows.no_rope_layers).toBeUndefined();
    expect(architecture('smollm3').positionNote(SMOLLM3)).toMatch(
      /RoPE on all 64 dims of each head in 6 of 8 layers .*; layers 3 and 7 are NoPE \(no_rope_layers\): q and k are not rotated there/,
    );
    expect(architecture('smollm3').positionNote({ ...SMOLLM3, no_rope_layers: [1, 1, 1, 1, 1, 1, 1, 1] })).not.toMatch(
      /NoPE/,
    );
    const longrope = architecture('llama').configRows({ ...SMOL, rope: { scaling: 'longrope', originalLength: 4096 } });
    expect(longrope.find((r) => r.key === 'rope_scaling').value).toBe('longrope, a factor per pair (N = 4096)');
  });
});
