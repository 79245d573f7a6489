// The language-model worker job on a stand-in core (the real one is checked by tests/wasm and the
// Chromium e2e): one model kept between passes and deleted when replaced, a map per layer ×
// head, the top 10 decoded, inputs the model cannot read refused with a message.
import { beforeEach, describe, expect, it } from 'vitest';
import { countFromShapes, RANDOM_SHAPES } from '../../web/src/lm/shapes.js';
import { settingOfField, viewNamed } from '../../web/src/state/registry.js';
import { checkTokens, lm, lmFree, lmLoad } from '../../web/src/worker/jobs/lm.js';
import { TINY_NEOX_CONFIG, tinyTokenizerJson } from '../helpers/tiny-models.js';

const SMALL = { vocab_size: 50257, n_positions: 1024, n_embd: 768, n_layer: 12, n_head: 12, layer_norm_epsilon: 1e-5 };

function fakeModel(config, log, dtype = 'F32') {
  const full = { ...config, parameters: countFromShapes(config) };
  const m = {
    config: full,
    bytes: full.parameters.total * (dtype === 'F16' ? 2 : 4),
    dtype,
    deleted: false,
    forward(ids, opts) {
      log.forwards.push({ ids: Array.from(ids), opts, model: m });
      const T = ids.length;
      const H = config.n_head;
      const layers = Array.from({ length: config.n_layer }, () => {
        const a = new Float32Array(H * T * T);
        for (let h = 0; h < H; h++)
          for (let i = 0; i < T; i++) for (let j = 0; j <= i; j++) a[h * T * T + i * T + j] = 1 / (i + 1);
        return { attention: { data: a, shape: [H, T, T] } };
      });
      return {
        logits: { data: new Float32Array(0), shape: [T, config.vocab_size] },
        layers,
        topIds: Int32Array.from([262, 13]),
        topProbs: Float32Array.from([0.6, 0.1]),
        position: opts.position ?? 'learned',
        positionNote: `note for ${opts.position}`,
      };
    },
    delete() {
      m.deleted = true;
      log.deleted.push(m);
    },
  };
  return m;
}

// A GPT-NeoX model as lab.gptNeoxLoader's finish() gives it: its config keys, a total count.
function fakeNeox(log) {
  const c = TINY_NEOX_CONFIG;
  const m = fakeModel({ vocab_size: c.vocab_size, n_positions: 64, n_embd: 32, n_layer: 2, n_head: 4 }, log, 'F16');
  m.architecture = 'gpt_neox';
  m.config = { ...c, parameters: 12345, rope: { scaling: 'none', rotaryDim: 2, base: 10000 } };
  return m;
}

/** A loader handle that counts the bytes appended and gives `finish()`'s model. */
function fakeLoading(expected, finish) {
  let received = 0;
  return {
    tensors: [{ name: 'w', dtype: 'F16' }],
    expected,
    received: () => received,
    append: (c) => (received += c.length),
    finish,
    delete: () => {},
  };
}

function fakeLab() {
  const log = { random: [], forwards: [], deleted: [], loaders: 0, neoxLoaders: [] };
  const lab = {
    log,
    gptNeoxLoader({ config, fileSize, header }) {
      log.neoxLoaders.push(config);
      return fakeLoading(fileSize - header.length, () => fakeNeox(log));
    },
    gpt2Random(opts) {
      log.random.push(opts);
      const config = opts.preset === 'small' ? SMALL : opts.config;
      return fakeModel(config, log);
    },
    safetensorsHeaderLength: () => 2,
    gpt2Loader({ config, fileSize, header }) {
      log.loaders++;
      return fakeLoading(fileSize - header.length, () => fakeModel(config ?? SMALL, log, 'F16'));
    },
  };
  return lab;
}

const file = (bytes, name) => new File([new Uint8Array(bytes)], name);

let lab;
beforeEach(async () => {
  await lmFree(); // the job's model outlives a call by design: start each test without one
  lab = fakeLab();
});

describe('Language-model job', () => {
  it('LmJob.MapsForEveryLayerAndHeadAndTheTopTenDecoded', async () => {
    const progress = [];
    const r = await lm(
      lab,
      { text: 'Hello world', position: 'learned', source: { kind: 'random', shape: 'mini' } },
      { progress: (x) => progress.push(x) },
    );
    const mini = RANDOM_SHAPES.mini.config;
    expect(lab.log.random).toEqual([{ config: mini, seed: 0 }]);
    expect(progress).toEqual([{ phase: 'create', label: RANDOM_SHAPES.mini.label }]);
    expect(r.ids).toEqual([15496, 995]);
    expect(r.pieces).toEqual(['Hello', ' world']);
    expect([r.layers, r.heads]).toEqual([4, 4]);
    expect(Object.keys(r.heatmaps)).toHaveLength(16);
    const m = r.heatmaps.L3H2;
    expect([m.rows, m.cols, m.range]).toEqual([2, 2, [0, 1]]);
    expect(Array.from(m.data)).toEqual([1, 0, 0.5, 0.5]);
    expect(r.top).toEqual({ ids: [262, 13], probs: [Math.fround(0.6), Math.fround(0.1)], pieces: [' the', '.'] });
    expect(r.model).toMatchObject({ kind: 'random', shape: 'mini', seed: 0, dtype: 'F32' });
    expect(lab.log.forwards[0].opts).toEqual({ position: 'learned', topK: 10, trace: true });
  });

  it('LmJob.ModelStaysBetweenPassesAndIsDeletedWhenReplaced', async () => {
    const p = { text: 'a b c', position: 'rope', source: { kind: 'random', shape: 'mini' } };
    await lm(lab, p);
    await lm(lab, { ...p, text: 'd e', position: 'alibi' });
    expect(lab.log.random).toHaveLength(1); // created once
    expect(lab.log.forwards.map((f) => f.opts.position)).toEqual(['rope', 'alibi']);
    const first = lab.log.forwards[0].model;
    const r = await lm(lab, { ...p, source: { kind: 'random', shape: 'small' } });
    expect(first.deleted).toBe(true);
    expect(lab.log.random[1]).toEqual({ preset: 'small', seed: 0 });
    expect([r.layers, r.heads]).toEqual([12, 12]);
    expect(Object.keys(r.heatmaps)).toHaveLength(144);
  });

  it('LmJob.LoadedCheckpointReplacesTheRandomModel', async () => {
    await lm(lab, { text: 'x', position: 'learned', source: { kind: 'random', shape: 'mini' } });
    const random = lab.log.forwards[0].model;
    const progress = [];
    const tiny = { vocab_size: 50257, n_positions: 64, n_embd: 32, n_layer: 2, n_head: 4 };
    const loaded = await lmLoad(
      lab,
      { model: file(2 + 8 + 100, 'model.safetensors'), config: new File([JSON.stringify(tiny)], 'config.json') },
      { progress: (x) => progress.push(x) },
    );
    expect(random.deleted).toBe(true);
    expect(loaded.model).toMatchObject({
      kind: 'file',
      name: 'model.safetensors',
      configName: 'config.json',
      dtype: 'F16',
    });
    expect(progress.at(-1)).toEqual({ phase: 'load', received: 100, expected: 100 });
    const r = await lm(lab, {
      text: 'Hello world',
      position: 'learned',
      source: { kind: 'file', key: loaded.model.key },
    });
    expect([r.layers, r.heads]).toEqual([2, 4]);
    expect(r.model.key).toBe(loaded.model.key);
    // Going back to random weights frees the checkpoint.
    const fileModel = lab.log.forwards.at(-1).model;
    await lm(lab, { text: 'x', position: 'learned', source: { kind: 'random', shape: 'mini' } });
    expect(fileModel.deleted).toBe(true);
    await expect(
      lm(lab, { text: 'x', position: 'learned', source: { kind: 'file', key: loaded.model.key } }),
    ).rejects.toThrow(/no longer in memory/);
  });

  it('LmJob.NeoxRunsWithItsTokenizerJsonAndItsOwnRows', async () => {
    const neoxFiles = (tokenizer = JSON.stringify(tinyTokenizerJson())) => ({
      model: file(2 + 8 + 40, 'model.safetensors'),
      config: new File([JSON.stringify(TINY_NEOX_CONFIG)], 'config.json'),
      tokenizer: tokenizer === null ? null : new File([tokenizer], 'tokenizer.json'),
    });
    const loaded = await lmLoad(lab, neoxFiles());
    expect(lab.log.loaders).toBe(0); // config.json's model_type chose GPT-NeoX's loader
    expect(lab.log.neoxLoaders).toEqual([TINY_NEOX_CONFIG]);
    expect(loaded.model).toMatchObject({ architecture: 'gpt_neox', tokenizerName: 'tokenizer.json', dtype: 'F16' });
    const r = await lm(lab, {
      text: 'the cat sat',
      position: 'alibi',
      source: { kind: 'file', key: loaded.model.key },
    });
    // The tiny tokenizer.json's merges (Ġthe, Ġcat, Ġsat), not GPT-2's ranks.
    expect(r.pieces).toEqual(['t', 'he', ' cat', ' sat']);
    expect(r.ids).toEqual([2 + 116, 259, 263, 265]);
    expect(lab.log.forwards.at(-1).opts).toEqual({ topK: 10, trace: true, logits: false, lossByPosition: true }); // no position swap
    expect([r.layers, r.heads, r.position]).toEqual([2, 4, 'rope']);
    expect(r.positionNote).toMatch(/^Positions as trained: RoPE on the first 2 of each head’s 8 dims/);
    expect(r.top.pieces[0]).toBe('at'); // top ids decoded by the model's own vocabulary (262: 'at')
    // Without its tokenizer.json or config.json a NeoX checkpoint is refused before any read.
    const before = lab.log.neoxLoaders.length;
    await expect(lmLoad(lab, neoxFiles(null))).rejects.toThrow(
      /^model\.safetensors is a GPT-NeoX checkpoint: pick its tokenizer\.json with it/,
    );
    await expect(lmLoad(lab, neoxFiles('{"model": 3}'))).rejects.toThrow(
      /^tokenizer\.json: expected a tokenizer\.json object/,
    );
    expect(lab.log.neoxLoaders).toHaveLength(before);
    // The model on show stayed; when it is gone the page's own way back is named.
    await lm(lab, { text: 'x', position: 'learned', source: { kind: 'file', key: loaded.model.key } });
    await lmFree();
    await expect(
      lm(lab, {
        text: 'x',
        position: 'learned',
        source: { kind: 'file', key: loaded.model.key, again: 'click “Load Pythia-70m” again' },
      }),
    ).rejects.toThrow(/^the loaded model is no longer in memory: click “Load Pythia-70m” again$/);
  });

  it('LmJob.FailedLoadKeepsTheModelInUse', async () => {
    await lm(lab, { text: 'x', position: 'learned', source: { kind: 'random', shape: 'mini' } });
    await expect(
      lmLoad(lab, { model: file(20, 'model.safetensors'), config: new File(['{oops'], 'config.json') }),
    ).rejects.toThrow(/config\.json: not valid JSON/);
    const before = lab.log.random.length;
    await lm(lab, { text: 'y', position: 'learned', source: { kind: 'random', shape: 'mini' } });
    expect(lab.log.random).toHaveLength(before); // the same model served the next pass
    expect(lab.log.deleted).toHaveLength(0);
  });

  it('LmJob.RefusesWhatTheModelCannotRead', async () => {
    const tiny = { vocab_size: 1000, n_positions: 4 };
    expect(() => checkTokens([], [], tiny)).toThrow(/no tokens/);
    expect(() => checkTokens([1, 2, 3, 4, 5], [], tiny)).toThrow(
      /5 tokens: this model reads at most n_positions = 4 tokens \(T is capped by n_positions\)/,
    );
    expect(() => checkTokens([1, 2], ['a', ' world'], { vocab_size: 1000, n_positions: 1024 })).not.toThrow();
    expect(() => checkTokens([1, 2000], ['a', ' world'], tiny)).toThrow(
      /token 1 “ world” has id 2000, outside this checkpoint's vocabulary of 1000 tokens/,
    );
    expect(() => checkTokens(new Array(300).fill(1), [], SMALL)).toThrow(/at most 256 tokens/);
    await expect(lm(lab, { text: '', position: 'learned', source: { kind: 'random', shape: 'mini' } })).rejects.toThrow(
      /no tokens/,
    );
  });

  // The Models view shows an error beside the control its field names (registry: fields):
  // every refusal of the job carries one, and no message is read to route it.
  it('LmJob.EveryRefusalNamesTheFieldTheModelsViewRoutes', async () => {
    const view = viewNamed('lm');
    const random = (shape = 'mini') => ({ kind: 'random', shape });
    const fieldOf = (p) =>
      lm(lab, { position: 'learned', source: random(), ...p }).then(
        () => 'no error',
        (e) => [e.field, settingOfField(view, e.field, {})],
      );
    expect(await fieldOf({ text: '' })).toEqual(['tokens', 'lm.text']);
    // GPT-NeoX's limit names n_positions' twin, max_position_embeddings: still the text.
    const tooLong = { vocab_size: 1000, max_position_embeddings: 4 };
    expect(() => checkTokens([1, 2, 3, 4, 5], [], tooLong)).toThrow(
      expect.objectContaining({ field: 'tokens', message: expect.stringMatching(/max_position_embeddings/) }),
    );
    expect(await fieldOf({ text: 'a', source: random('huge') })).toEqual(['shape', 'lm.init']);
    const gone = { kind: 'file', key: 'file:999', again: 'pick it again' };
    expect(await fieldOf({ text: 'a', source: gone })).toEqual(['source', null]); // beside the file input
    // The core's own fields, as its JS API names them: a message that speaks of a position
    // is about the text when its field says so.
    const coreError = (message, field) => {
      const model = fakeModel(SMALL, lab.log);
      model.forward = () => {
        throw Object.assign(new Error(message), { field });
      };
      lab.gpt2Random = () => model;
    };
    for (const [message, field, setting] of [
      ['token 7 at position 2 is outside the vocabulary [0, 5)', 'tokens', 'lm.text'],
      ["unknown position method 't5' (expected learned, …)", 'position', 'lm.position'],
      ['the trace of 9000 tokens is too large: trace a shorter sequence', 'trace', 'lm.text'],
    ]) {
      await lmFree();
      coreError(message, field);
      expect(await fieldOf({ text: 'b' }), message).toEqual([field, setting]);
    }
  });

  it('LmJob.PassesRunOneAfterAnother', async () => {
    const order = [];
    const slow = { ...fakeLab() };
    const base = slow.gpt2Random;
    slow.gpt2Random = (o) => {
      order.push('create');
      return base(o);
    };
    const a = lm(slow, { text: 'a', position: 'learned', source: { kind: 'random', shape: 'mini' } }).then(() =>
      order.push('a'),
    );
    const b = lm(slow, { text: 'b', position: 'learned', source: { kind: 'random', shape: 'mini' } }).then(() =>
      order.push('b'),
    );
    await Promise.all([a, b]);
    expect(order).toEqual(['create', 'a', 'b']);
  });
});
