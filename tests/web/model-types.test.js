// web/src/state/model-types.js is the core's model-type table as the built language-model
// module gives it (`npm run generate` writes it), and the Models view's architectures read it:
// every RoPE architecture the page runs has a row, the core reads a config of sizes alone with
// that row's defaults, and the rows, steps and note for local and global bases, and for NoPE
// layers, follow the row.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLmLab } from './helpers/lab.js';
import { ARCHITECTURES, architecture } from '../../web/src/lm/architectures.js';
import { hasLocalBase, modelTypeRow, nopeLayers } from '../../web/src/lm/model-type.js';
import { MODEL_TYPES } from '../../web/src/state/model-types.js';

// Sizes only: every other key is the model type's default. 32 heads divide every row's kv heads.
const SIZES = {
  vocab_size: 64,
  hidden_size: 256,
  num_hidden_layers: 2,
  num_attention_heads: 32,
  intermediate_size: 128,
};
const H = SIZES.num_attention_heads;

let lab;
beforeAll(async () => {
  lab = await loadLmLab();
});

const ropeArchitectures = ARCHITECTURES.filter((name) => architecture(name).rope);
const llamaMembers = ropeArchitectures.filter((name) => architecture(name).loader === 'llamaLoader');
const coreConfig = (name) =>
  architecture(name).loader === 'llamaLoader'
    ? lab.llamaConfig({ config: JSON.stringify({ ...SIZES, model_type: name }) })
    : lab.gptNeoxConfig({ config: { ...SIZES, model_type: name } });

describe('the model-type table on the page', () => {
  it('ModelTypes.TheGeneratedModuleIsTheCoresTable', () => {
    expect(MODEL_TYPES).toEqual(lab.modelTypes());
    const names = MODEL_TYPES.map((row) => row.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('ModelTypes.EveryRopeArchitectureHasARow', () => {
    expect(ropeArchitectures).toEqual(['gpt_neox', 'llama', 'mistral', 'qwen2', 'qwen3', 'gemma3_text', 'smollm3']);
    for (const name of ropeArchitectures) expect(modelTypeRow(name)?.name, name).toBe(name);
    // GPT-2 learns its positions: no rotation, no row.
    expect(modelTypeRow('gpt2')).toBeUndefined();
  });

  it('ModelTypes.TheCoreReadsSizesAloneWithTheRowsDefaults', () => {
    const windows = [];
    for (const name of llamaMembers) {
      const { sizes, rotation, layers } = modelTypeRow(name);
      const c = coreConfig(name);
      // A window by default where every layer, or a pattern of them, slides; Qwen's is off until
      // use_sliding_window, Llama reads none.
      const window =
        ['every', 'pattern'].includes(layers.sliding) && layers.useSlidingWindow !== 'off' ? layers.slidingWindow : 0;
      windows.push(window);
      expect(c, name).toMatchObject({
        max_position_embeddings: sizes.context,
        num_key_value_heads: sizes.kvHeads || H,
        head_dim: sizes.headDim || SIZES.hidden_size / H,
        rope_theta: rotation.theta,
        rms_norm_eps: sizes.normEps,
        tie_word_embeddings: sizes.tieWordEmbeddings,
        sliding_window: window,
      });
      expect(c.rope_local_base_freq, name).toBe(rotation.localBase > 0 ? rotation.localBase : undefined);
    }
    expect(windows.some((w) => w > 0) && windows.includes(0)).toBe(true);
    const neox = modelTypeRow('gpt_neox');
    expect(coreConfig('gpt_neox')).toMatchObject({
      max_position_embeddings: neox.sizes.context,
      rotary_emb_base: neox.rotation.theta,
      rotary_pct: neox.rotation.fraction,
      layer_norm_eps: neox.sizes.normEps,
    });
  });

  it('ModelTypes.LocalAndGlobalBasesFollowTheTable', () => {
    const local = llamaMembers.filter(hasLocalBase);
    expect(local).toEqual(
      MODEL_TYPES.filter((row) => row.rotation.localBase > 0 && llamaMembers.includes(row.name)).map((row) => row.name),
    );
    expect(local).toEqual(['gemma3_text']);
    for (const name of llamaMembers) {
      const c = coreConfig(name);
      const a = architecture(name);
      const base = a.configRows(c).find((r) => r.key === 'rope_local_base_freq');
      expect(base?.value, name).toBe(hasLocalBase(name) ? modelTypeRow(name).rotation.localBase : undefined);
      const steps = a.structure(c, 8).steps.map((s) => s.id);
      expect(steps.includes('rope_local'), name).toBe(hasLocalBase(name));
      expect(/\(local\).*\(global\)/.test(a.positionNote(c)), name).toBe(hasLocalBase(name));
    }
  });

  it('ModelTypes.NopeLayersFollowTheTable', () => {
    // Eight layers of sizes alone: a member whose row reads no_rope_layers makes every
    // nopeInterval-th layer NoPE, and its table row, rope step and note say which.
    const EIGHT = { ...SIZES, num_hidden_layers: 8 };
    const members = llamaMembers.filter((name) => modelTypeRow(name).layers.noRopeLayers);
    expect(members).toEqual(['smollm3']);
    for (const name of llamaMembers) {
      const c = lab.llamaConfig({ config: JSON.stringify({ ...EIGHT, model_type: name }) });
      const interval = members.includes(name) ? modelTypeRow(name).layers.nopeInterval : 0;
      const want = interval > 0 ? [...Array(8).keys()].filter((i) => (i + 1) % interval === 0) : [];
      expect(nopeLayers(c), name).toEqual(want);
      const a = architecture(name);
      expect(
        a.configRows(c).some((r) => r.key === 'no_rope_layers'),
        name,
      ).toBe(members.includes(name));
      const rope = a.structure(c, 8).steps.find((s) => s.id === 'rope').detail;
      expect(/NoPE/.test(rope), name).toBe(want.length > 0);
      expect(/are NoPE/.test(a.positionNote(c)), name).toBe(want.length > 1);
    }
  });
});
