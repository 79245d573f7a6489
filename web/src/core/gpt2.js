// The GPT-2 API over the raw bindings of cpp/wasm/gpt2_bindings.cpp: configs with parameter
// counts, random-init and checkpoint models that live in the wasm heap until .delete(), a
// loader fed a .safetensors file chunk by chunk, and the traced forward pass. Declarations
// and docs: gpt2.d.ts.
import { PosLabError } from './errors.js';
import { guardMethods, unwrap } from './raw.js';
import * as check from './validate.js';

/** The GPT-2 API bound to an instantiated poslab-gpt2 module. */
export function bindGpt2(m) {
  // A raw binding's { error } becomes a PosLabError (and so does anything it throws:
  // guardMethods wraps every method handed out).
  const call = (fn, ...args) => unwrap(fn(...args));
  // The core's position methods (kGpt2PositionNames); the first is the default, as trained.
  const positions = Object.freeze(m.gpt2Positions());

  // { preset } | { config: object | config.json text } | {} → what the binding takes.
  const configArg = (o, name) => {
    if (o.preset !== undefined && o.config !== undefined) {
      throw new PosLabError(`${name}: give preset or config, not both`, { field: 'config' });
    }
    if (o.preset !== undefined) return { preset: check.string(o.preset, 'preset') };
    if (o.config === undefined) return undefined;
    if (typeof o.config === 'string') return o.config;
    if (o.config === null || typeof o.config !== 'object' || Array.isArray(o.config)) {
      throw new PosLabError(`${name}: config must be config.json's object or text`, { field: 'config' });
    }
    return JSON.stringify(o.config);
  };

  const bytes = (value, name) => {
    if (!(value instanceof Uint8Array)) throw new PosLabError(`${name} must be a Uint8Array`, { field: name });
    return value;
  };

  const tokenArray = (tokens) => {
    const list = tokens instanceof Int32Array ? tokens : Array.isArray(tokens) ? tokens : null;
    const field = { field: 'tokens' };
    if (!list) throw new PosLabError('tokens must be an array of token ids or an Int32Array', field);
    list.forEach((id, i) => check.integer(id, `tokens[${i}]`, 0, 'tokens'));
    if (list.length === 0) throw new PosLabError('GPT-2 needs at least one token', field);
    return Int32Array.from(list, (id) => {
      if (id > 0x7fffffff) throw new PosLabError(`token ${id} is outside the vocabulary`, field);
      return id;
    });
  };

  // The core's checks of the tokens against the model (cpp/src/gpt2.cpp) name no field: the
  // same checks, with the same messages, run here first so the error names 'tokens'.
  const fitTokens = (ids, config) => {
    const field = { field: 'tokens' };
    if (ids.length > config.n_positions) {
      throw new PosLabError(`${ids.length} tokens exceed n_positions ${config.n_positions}`, field);
    }
    const bad = ids.findIndex((id) => id >= config.vocab_size);
    if (bad >= 0) {
      const vocabulary = `[0, ${config.vocab_size})`;
      throw new PosLabError(`token ${ids[bad]} at position ${bad} is outside the vocabulary ${vocabulary}`, field);
    }
    return ids;
  };

  // Wraps a raw model handle; the handle is freed by delete().
  const wrapModel = (raw) => {
    let live = true;
    const alive = () => {
      if (!live) throw new PosLabError('this GPT-2 model was deleted');
      return raw;
    };
    const config = raw.config();
    return guardMethods({
      config,
      bytes: raw.bytes(),
      dtype: raw.dtype(),
      forward(tokens, opts) {
        const o = check.options(opts, 'forward', ['position', 'topK', 'trace', 'precision']);
        const precision = o.precision === undefined ? 'float' : check.string(o.precision, 'precision');
        if (precision !== 'float' && precision !== 'double') {
          throw new PosLabError(`unknown precision '${precision}' (expected float or double)`, { field: 'precision' });
        }
        const position = o.position === undefined ? positions[0] : check.string(o.position, 'position');
        if (!positions.includes(position)) {
          const expected = positions.join(', ');
          throw new PosLabError(`unknown position method '${position}' (expected ${expected})`, { field: 'position' });
        }
        const raw = alive();
        return call(() =>
          raw.forward(fitTokens(tokenArray(tokens), config), {
            position,
            topK: o.topK === undefined ? 10 : check.integer(o.topK, 'topK', 1),
            trace: o.trace === undefined ? true : check.boolean(o.trace, 'trace'),
            precision,
          }),
        );
      },
      delete() {
        if (live) raw.delete();
        live = false;
      },
    });
  };

  return guardMethods({
    /** The position methods forward() accepts, the default (as trained) first. */
    positions,
    /** Bytes the module's malloc has handed out and not had back: models count until delete(). */
    liveHeapBytes: () => m.liveHeapBytes(),
    gpt2Config(opts) {
      const o = check.options(opts, 'gpt2Config', ['preset', 'config']);
      return call(m.gpt2Config, configArg(o, 'gpt2Config'));
    },

    gpt2Random(opts) {
      const o = check.options(opts, 'gpt2Random', ['preset', 'config', 'seed']);
      const seed = o.seed === undefined ? 0 : check.integer(o.seed, 'seed');
      return wrapModel(call(m.gpt2Random, configArg(o, 'gpt2Random'), seed).model);
    },

    safetensorsHeaderLength(first8, fileSize, name) {
      return call(
        m.safetensorsHeaderLength,
        bytes(first8, 'first8'),
        check.integer(fileSize, 'fileSize'),
        name === undefined ? 'model.safetensors' : check.string(name, 'name'),
      );
    },

    gpt2Loader(opts) {
      const o = check.options(opts, 'gpt2Loader', ['header', 'fileSize', 'name', 'preset', 'config']);
      const name = o.name === undefined ? 'model.safetensors' : check.string(o.name, 'name');
      const r = call(
        m.gpt2Loader,
        bytes(o.header, 'header'),
        check.integer(o.fileSize, 'fileSize'),
        name,
        configArg(o, 'gpt2Loader'),
      );
      const raw = r.loader;
      let live = true;
      const alive = () => {
        if (!live) throw new PosLabError('this GPT-2 loader was deleted');
        return raw;
      };
      return guardMethods({
        tensors: r.tensors,
        config: r.config,
        expected: raw.expected(),
        received: () => alive().received(),
        append(chunk) {
          const loader = alive();
          call(() => loader.append(bytes(chunk, 'chunk')));
        },
        finish() {
          const loader = alive();
          return wrapModel(call(() => loader.finish()).model);
        },
        delete() {
          if (live) raw.delete();
          live = false;
        },
      });
    },
  });
}
