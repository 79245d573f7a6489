// The chunked checkpoint reader: header first, then the data buffer in order, in pieces, to a
// loader that is always deleted; config.json parsing and sorting the picked files.
import { describe, expect, it } from 'vitest';
import { checkpointOf, loadCheckpoint, parseConfigJson, pickFiles } from '../../web/src/lm/loading.js';

// A file: 8-byte little-endian header length, the header JSON, then `data` bytes.
function fakeFile(headerText, dataBytes, name = 'model.safetensors') {
  const header = new TextEncoder().encode(headerText);
  const out = new Uint8Array(8 + header.length + dataBytes);
  new DataView(out.buffer).setBigUint64(0, BigInt(header.length), true);
  out.set(header, 8);
  for (let i = 0; i < dataBytes; i++) out[8 + header.length + i] = i % 251;
  return new File([out], name);
}

// A stand-in for lab.safetensorsHeaderLength + lab.gpt2Loader that records what it is given.
function fakeLab({ failAt = -1 } = {}) {
  const log = { chunks: [], deleted: 0, header: null, opts: null };
  return {
    log,
    safetensorsHeaderLength(first8, size, name) {
      expect(first8).toHaveLength(8);
      const n = Number(new DataView(first8.buffer, first8.byteOffset).getBigUint64(0, true));
      if (8 + n > size) throw new Error(`${name}: header of ${n} bytes runs past the end`);
      return n;
    },
    gpt2Loader(opts) {
      log.opts = opts;
      log.header = new TextDecoder().decode(opts.header.subarray(8));
      let received = 0;
      const expected = opts.fileSize - opts.header.length;
      return {
        tensors: [{ name: 'h.0.ln_1.weight', dtype: 'F32' }],
        expected,
        received: () => received,
        append(chunk) {
          if (log.chunks.length === failAt)
            throw new Error("model.safetensors: tensor 'h.0.ln_1.weight' is not finite");
          log.chunks.push(Array.from(chunk));
          received += chunk.length;
        },
        finish() {
          if (received !== expected) throw new Error(`incomplete: ${received} of ${expected}`);
          return { model: true, bytes: received };
        },
        delete() {
          log.deleted++;
        },
      };
    },
  };
}

describe('Checkpoint reader', () => {
  it('Loading.TheArchitecturePicksTheLoaderBeforeAnyWeightIsRead', async () => {
    const neox = fakeLab();
    const gpt2Loader = neox.gpt2Loader;
    const seen = [];
    // Declared by config.json: GPT-NeoX's loader; else the checkpoint's names (architectureOf).
    const withNeox = { ...neox, gpt2Loader: () => expect.unreachable(), gptNeoxLoader: gpt2Loader };
    await loadCheckpoint(withNeox, fakeFile('{}', 4), {
      architecture: 'gpt_neox',
      onArchitecture: (a) => seen.push(a),
    });
    const detect = { ...withNeox, architectureOf: (header) => (header.length === 10 ? 'gpt_neox' : 'gpt2') };
    await loadCheckpoint(detect, fakeFile('{}', 4), { onArchitecture: (a) => seen.push(a) });
    expect(seen).toEqual(['gpt_neox', 'gpt_neox']);
    expect(neox.log.deleted).toBe(2);
    // A refusal in onArchitecture reads no weight and makes no loader.
    const refused = fakeLab();
    await expect(
      loadCheckpoint(refused, fakeFile('{}', 4), {
        onArchitecture: () => {
          throw new Error('needs its tokenizer.json');
        },
      }),
    ).rejects.toThrow(/tokenizer\.json/);
    expect([refused.log.opts, refused.log.chunks]).toEqual([null, []]);
  });

  it('Loading.StreamsTheDataInOrderedChunksAndDeletesTheLoader', async () => {
    const lab = fakeLab();
    const file = fakeFile('{"a":1}', 25);
    const progress = [];
    const model = await loadCheckpoint(lab, file, { chunkBytes: 10, onProgress: (p) => progress.push(p) });
    expect(model).toEqual({ model: true, bytes: 25 });
    expect(lab.log.header).toBe('{"a":1}');
    expect(lab.log.opts).toMatchObject({ fileSize: file.size, name: 'model.safetensors' });
    expect(lab.log.opts).not.toHaveProperty('config'); // inferred from the header
    expect(lab.log.chunks.map((c) => c.length)).toEqual([10, 10, 5]);
    expect(lab.log.chunks.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i % 251));
    expect(progress).toEqual([
      { received: 0, expected: 25 },
      { received: 10, expected: 25 },
      { received: 20, expected: 25 },
      { received: 25, expected: 25 },
    ]);
    expect(lab.log.deleted).toBe(1);
  });

  it('Loading.PassesTheConfigAndNameThrough', async () => {
    const lab = fakeLab();
    const config = { n_embd: 32, n_head: 4 };
    await loadCheckpoint(lab, fakeFile('{}', 3), { config, name: 'tiny.safetensors' });
    expect(lab.log.opts).toMatchObject({ config, name: 'tiny.safetensors' });
  });

  it('Loading.ErrorsDeleteTheLoaderAndNameTheTensor', async () => {
    const lab = fakeLab({ failAt: 1 });
    await expect(loadCheckpoint(lab, fakeFile('{}', 30), { chunkBytes: 8 })).rejects.toThrow(/h\.0\.ln_1\.weight/);
    expect(lab.log.deleted).toBe(1);
  });

  it('Loading.TruncatedAndTinyFilesAreRefused', async () => {
    const lab = fakeLab();
    await expect(loadCheckpoint(lab, new File([new Uint8Array(5)], 'x.safetensors'))).rejects.toThrow(
      /x\.safetensors: 5 bytes is too short/,
    );
    const whole = fakeFile('{"long header":true}', 0);
    const cut = new File([whole.slice(0, 14)], 'model.safetensors');
    await expect(loadCheckpoint(lab, cut)).rejects.toThrow(/runs past the end/);
    expect(lab.log.opts).toBeNull(); // no loader was made
  });

  it('Loading.CancelStopsAtTheNextChunk', async () => {
    const lab = fakeLab();
    let n = 0;
    await expect(loadCheckpoint(lab, fakeFile('{}', 40), { chunkBytes: 10, cancelled: () => ++n > 2 })).rejects.toThrow(
      /cancelled/,
    );
    expect(lab.log.chunks).toHaveLength(2);
    expect(lab.log.deleted).toBe(1);
  });

  it('Loading.ConfigJsonMustBeAnObject', () => {
    expect(parseConfigJson('{"n_embd": 32}')).toEqual({ n_embd: 32 });
    expect(() => parseConfigJson('{n_embd: 32}')).toThrow(/config\.json: not valid JSON/);
    expect(() => parseConfigJson('[1]', 'my.json')).toThrow(/my\.json: expected a JSON object/);
  });

  it('Loading.PickFilesSortsModelConfigAndTokenizer', () => {
    const m = { name: 'model.safetensors' };
    const c = { name: 'config.json' };
    const t = { name: 'tokenizer.json' };
    expect(pickFiles([c, m])).toEqual({ model: m, config: c, tokenizer: null });
    expect(pickFiles([m])).toEqual({ model: m, config: null, tokenizer: null });
    expect(pickFiles([t, m, c])).toEqual({ model: m, config: c, tokenizer: t });
    expect(() => pickFiles([t])).toThrow(/not a model/);
    expect(() => pickFiles([m, t, { name: 'Tokenizer.JSON' }])).toThrow(/at most one tokenizer\.json/);
    expect(() => pickFiles([c])).toThrow(/config\.json alone is not a model/);
    expect(() => pickFiles([m, { name: 'b.safetensors' }])).toThrow(/one checkpoint/);
    expect(() => pickFiles([m, c, { name: 'x.JSON' }])).toThrow(/at most one config\.json/);
    // A sharded checkpoint: its index and the shards (the core checks they are the ones named).
    const index = { name: 'model.safetensors.index.json' };
    const s1 = { name: 'model-00001-of-00002.safetensors', size: 5 };
    const s2 = { name: 'model-00002-of-00002.safetensors', size: 7 };
    const sharded = pickFiles([s2, index, c, t, s1]);
    expect(sharded).toEqual({ model: null, index, shards: [s2, s1], config: c, tokenizer: t });
    expect(checkpointOf(sharded)).toEqual({ name: 'model.safetensors.index.json', bytes: 12 });
    expect(checkpointOf(pickFiles([{ name: 'm.safetensors', size: 3 }]))).toEqual({ name: 'm.safetensors', bytes: 3 });
    expect(() => pickFiles([index, c])).toThrow('pick the shard files model.safetensors.index.json names with it');
    expect(() => pickFiles([index, { name: 'b.index.json' }, s1])).toThrow(/one checkpoint index, not 2/);
  });
});
