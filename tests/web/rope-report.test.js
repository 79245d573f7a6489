// The RoPE inspector's job on the built language-model module (as the worker runs it) on
// bundled configs, and its report in words: layer runs, attention, position, each base's facts
// and the plot's reference lines (coinciding ones merged).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { createGpt2Lab } from '../../web/src/core/poslab.js';
import { ROPE_CONFIGS } from '../../web/src/state/rope-configs.js';
import {
  attentionText,
  axisLines,
  indexRuns,
  layerRuns,
  criticalText,
  mlaFacts,
  positionText,
  referenceLines,
  schemeFacts,
  temperatureText,
} from '../../web/src/views/rope-report.js';
import { ropeConfig } from '../../web/src/worker/jobs/rope-config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const configText = (name) => fs.readFileSync(path.join(root, 'web/src/content/rope-configs', `${name}.json`), 'utf8');

describe('RoPE inspector report', () => {
  let lab;
  beforeAll(async () => {
    const wasmBinary = fs.readFileSync(path.join(root, 'build/wasm/simd/poslab-lm.wasm'));
    lab = await createGpt2Lab({ variant: 'simd', wasmBinary });
  });

  test('RopeReport.EveryBundledConfigIsReadWithAtLeastOneBase', () => {
    for (const [name] of ROPE_CONFIGS) {
      const { report } = ropeConfig(lab, { name: `${name}.json`, text: configText(name) });
      expect(report.schemes.length, name).toBeGreaterThan(0);
      expect(report.layers.length, name).toBeGreaterThan(0);
    }
  });

  test('RopeReport.GemmaLayersInRunsWithTheirBases', () => {
    const { report: r } = ropeConfig(lab, { name: 'gemma-3-4b.json', text: configText('gemma-3-4b') });
    const runs = layerRuns(r.layers);
    expect(runs.slice(0, 2).map((x) => [x.from, x.to, attentionText(x), positionText(x, r.schemes)])).toEqual([
      [0, 4, 'sliding window 1,024', 'RoPE base 10,000 (local)'],
      [5, 5, 'full', 'RoPE base 1,000,000, linear × 8 (global)'],
    ]);
    const [local, global] = r.schemes;
    expect(schemeFacts(global, r.maxPositionEmbeddings)).toEqual([
      'rotary dims R = 256 (128 pairs); trained context N = 16,384 (from max_position_embeddings / factor)',
      '73 of 128 pairs complete a turn within N; critical: pair 73 (dimension 146)',
      'linear × 8 reaches 131,072 positions; attention factor 1',
      "its layers see query–key distances up to 131,071 (the reach, or a sliding or chunked layer's window, less one: a query at position p sees keys back to p − 131,071)",
    ]);
    expect(schemeFacts(local)[3]).toMatch(/^its layers see query–key distances up to 1,023 \(/);
    expect(criticalText(local)).toBe('none (all 128 pairs turn within N)');
    // The local base's N and the global one's reach are both 131 072: one line, both labels.
    const lines = referenceLines(r.schemes);
    expect(lines.filter((l) => l.axis === 'y' && l.value === 131072)).toEqual([
      { axis: 'y', value: 131072, label: 'N = 131,072 (local); reaches 131,072 (global)' },
    ]);
    // The plot names the critical pair as the text does; the local base has none (every pair turns).
    expect(lines.filter((l) => l.axis === 'x').map((l) => l.label)).toEqual([
      'critical: pair 73 (dimension 146) (global)',
    ]);
  });

  test('RopeReport.AReachShortOfMaxPositionEmbeddingsIsExplained', () => {
    // Llama 3.1: llama3 × 8 on N = 8,192 reaches 65,536, under max_position_embeddings 131,072.
    const { report: r } = ropeConfig(lab, { name: 'llama-3.1-8b.json', text: configText('llama-3.1-8b') });
    const [s] = r.schemes;
    const facts = schemeFacts(s, r.maxPositionEmbeddings);
    expect(facts[1]).toBe('35 of 64 pairs complete a turn within N; critical: pair 35 (dimension 70)');
    expect(facts[2]).toMatch(
      /^llama3 × 8 reaches 65,536 positions; attention factor 1 — fewer than max_position_embeddings 131,072: /,
    );
    expect(facts[2]).toMatch(/\(N × 8\)/);
    expect(referenceLines(r.schemes).find((l) => l.axis === 'x').label).toBe('critical: pair 35 (dimension 70)');
    // The same config at its own limit says nothing more.
    expect(schemeFacts(s, s.reaches)[2]).toBe('llama3 × 8 reaches 65,536 positions; attention factor 1');
  });

  test('RopeReport.BadJsonIsAPlainMessageWithoutTheParserTag', () => {
    expect(() => ropeConfig(lab, { name: 'pasted config', text: '{"hidden_size": 64,' })).toThrow(
      expect.objectContaining({
        field: 'config',
        message: expect.stringMatching(
          /^pasted config: not valid JSON: parse error at line 1, column 20: (?!.*json\.exception)/,
        ),
      }),
    );
  });

  test('RopeReport.NopeLayersAndChunksInWords', () => {
    const { report: r } = ropeConfig(lab, { name: 'llama-4-scout.json', text: configText('llama-4-scout') });
    const [first, nope] = layerRuns(r.layers);
    expect([attentionText(first), positionText(first, r.schemes)]).toEqual([
      'chunks of 8,192',
      'RoPE base 500,000, llama3 × 8',
    ]);
    expect([nope.from, attentionText(nope), positionText(nope, r.schemes)]).toEqual([3, 'full', 'NoPE (no rotation)']);
  });

  test('RopeReport.DeepSeekMlaInWords', () => {
    const { report: r } = ropeConfig(lab, { name: 'deepseek-v3.json', text: configText('deepseek-v3') });
    expect(r.headDim).toBe(192);
    expect(r.schemes[0].rotaryDim).toBe(64);
    const facts = mlaFacts(r.mla, r.schemes[0]);
    expect(facts[0]).toBe(
      'queries and keys 192 dims per head: 128 without rotation (qk_nope_head_dim), then 64 rotated (qk_rope_head_dim, the R below); values 128 (v_head_dim)',
    );
    expect(facts[1]).toMatch(/from a 512-dim latent \(kv_lora_rank\).*from a 1536-dim latent \(q_lora_rank\)$/);
    expect(facts[2]).toBe('each rotated pair is two adjacent dims (2i, 2i + 1) (rope_interleave)');
    // 192^-1/2 × (0.1 ln 40 + 1)², the cos/sin factor 1 apart.
    expect(facts[3]).toMatch(
      /^softmax scale 192\^−½ × m² = 0\.1352\d*, m = 0\.1 × mscale_all_dim 1 × ln\(factor\) \+ 1 = 1\.3688\d*; cos and sin carry the attention factor 1 apart$/,
    );
  });

  test('RopeReport.LlamaFourTemperatureInWords', () => {
    const name = 'llama-4-scout-17b-16e';
    const { report: r } = ropeConfig(lab, { name: `${name}.json`, text: configText(name) });
    expect(positionText(layerRuns(r.layers)[0], r.schemes)).toBe('RoPE base 500,000, llama3 × 16');
    expect(temperatureText(r.temperature)).toBe(
      'NoPE layers multiply the query at position p by 1 + 0.1 × ln(1 + ⌊(p + 1) / 8,192⌋) (attn_temperature_tuning): 1 up to position 8,190, 1.3496507 at 262,143',
    );
    expect(r.notes).toContain(
      '"text_config.use_qk_norm" not modelled: it changes position or attention math this report leaves out',
    );
  });

  test('RopeReport.MropeAxesInWords', () => {
    const { report: r } = ropeConfig(lab, { name: 'qwen2-vl-7b.json', text: configText('qwen2-vl-7b') });
    expect(axisLines(r.mrope.axes)).toEqual([
      'time: pairs 0–15 (16)',
      'height: pairs 16–39 (24)',
      'width: pairs 40–63 (24)',
    ]);
    expect(r.mrope.sample.tokens).toBe('TTT' + 'I'.repeat(12) + 'TT');
    expect(r.mrope.sample.w).toEqual([0, 1, 2, 3, 4, 5, 6, 3, 4, 5, 6, 3, 4, 5, 6, 7, 8]);
    // Qwen3-VL's interleaving: t h w t h w …, the last pairs time.
    const interleaved = 'thw'.repeat(20) + 'tttt';
    expect(axisLines(interleaved)).toEqual([
      'time: pairs 0, 3, …, 60; 61–63 (24)',
      'height: pairs 1, 4, …, 58 (20)',
      'width: pairs 2, 5, …, 59 (20)',
    ]);
    expect(indexRuns([7])).toBe('7');
    expect(indexRuns([1, 5])).toBe('1, 5');
  });

  test('RopeReport.ABadConfigIsRefusedOnTheConfigField', () => {
    expect(() => ropeConfig(lab, { name: 'c.json', text: '{"hidden_size": 8}' })).toThrow(
      expect.objectContaining({ field: 'config', message: expect.stringMatching(/num_attention_heads/) }),
    );
  });
});
