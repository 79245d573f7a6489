// The GPT-NeoX (Pythia) API over the raw bindings of cpp/wasm/gpt_neox_bindings.cpp, in the
// same lab object as GPT-2's (poslab-gpt2 module): configs, random-init and checkpoint models
// that live in the wasm heap until .delete(), a loader fed a .safetensors file chunk by chunk,
// the forward pass (logits and/or next-token losses, trace, top-k, a RoPE scaling in place of
// the config's) and which architecture a checkpoint holds. Declarations and docs: gpt-neox.d.ts.
import { PosLabError } from './errors.js';
import { guardMethods, unwrap } from './raw.js';
import * as check from './validate.js';

const ROPE_KEYS = ['scaling', 'factor', 'originalLength', 'lowFreqFactor', 'highFreqFactor', 'betaFast', 'betaSlow'];

/** The GPT-NeoX methods bound to an instantiated poslab-gpt2 module (merged into its lab). */
export function bindGptNeox(m) {
  const call = (fn, ...args) => unwrap(fn(...args));
  // The core's scalings (kRopeScalingNames), 'none' first.
  const ropeScalings = Object.freeze(m.ropeScalings());

  // { preset } | { config: object | config.json text } → what the binding takes. Required:
  // a GPT-NeoX checkpoint does not say its head count or rotary settings.
  const configArg = (o, name) => {
    if (o.preset !== undefined && o.config !== undefined) {
      throw new PosLabError(`${name}: give preset or config, not both`, { field: 'config' });
    }
    if (o.preset !== undefined) return { preset: check.string(o.preset, 'preset') };
    if (o.config === undefined) {
      throw new PosLabError(
        `${name}: a preset or config.json is required (GPT-NeoX checkpoints do not say their shape)`,
        {
          field: 'config',
        },
      );
    }
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
    if (Array.isArray(list)) list.forEach((id, i) => check.integer(id, `tokens[${i}]`, 0, 'tokens'));
    else list.forEach((id, i) => id < 0 && check.integer(id, `tokens[${i}]`, 0, 'tokens'));
    if (list.length === 0) throw new PosLabError('GPT-NeoX needs at least one token', field);
    return Int32Array.from(list, (id) => {
      if (id > 0x7fffffff) throw new PosLabError(`token ${id} is outside the vocabulary`, field);
      return id;
    });
  };

  // rope: { scaling, factor?, originalLength?, ... }: types here, ranges in the core.
  const ropeArg = (value) => {
    const o = check.options(value, 'rope', ROPE_KEYS, 'rope');
    if (value === undefined) return undefined;
    const scaling = check.string(o.scaling, 'scaling');
    if (!ropeScalings.includes(scaling)) {
      throw new PosLabError(`unknown RoPE scaling '${scaling}' (expected ${ropeScalings.join(', ')})`, {
        field: 'scaling',
      });
    }
    const out = { scaling };
    for (const key of ['factor', 'lowFreqFactor', 'highFreqFactor', 'betaFast', 'betaSlow']) {
      if (o[key] !== undefined) out[key] = check.number(o[key], key);
    }
    if (o.originalLength !== undefined) out.originalLength = check.integer(o.originalLength, 'originalLength', 1);
    return out;
  };

  const FORWARD_KEYS = ['precision', 'trace', 'topK', 'logits', 'lossByPosition', 'rope'];

  // Wraps a raw model handle; the handle is freed by delete().
  const wrapModel = (raw) => {
    let live = true;
    const alive = () => {
      if (!live) throw new PosLabError('this GPT-NeoX model was deleted');
      return raw;
    };
    return guardMethods({
      architecture: 'gpt_neox',
      config: raw.config(),
      bytes: raw.bytes(),
      dtype: raw.dtype(),
      forward(tokens, opts) {
        const o = check.options(opts, 'forward', FORWARD_KEYS);
        const precision = o.precision === undefined ? 'float' : check.string(o.precision, 'precision');
        if (precision !== 'float' && precision !== 'double') {
          throw new PosLabError(`unknown precision '${precision}' (expected float or double)`, { field: 'precision' });
        }
        const args = {
          precision,
          topK: o.topK === undefined ? 10 : check.integer(o.topK, 'topK', 1),
          trace: o.trace === undefined ? false : check.boolean(o.trace, 'trace'),
          logits: o.logits === undefined ? true : check.boolean(o.logits, 'logits'),
          lossByPosition: o.lossByPosition === undefined ? false : check.boolean(o.lossByPosition, 'lossByPosition'),
        };
        const rope = ropeArg(o.rope);
        if (rope) args.rope = rope;
        const ids = tokenArray(tokens);
        const handle = alive();
        return call(() => handle.forward(ids, args));
      },
      delete() {
        if (live) raw.delete();
        live = false;
      },
    });
  };

  return {
    /** The RoPE scalings forward's rope.scaling accepts, 'none' first. */
    ropeScalings,
    /** Size of the wasm heap in bytes (it only grows: the high-water mark). */
    wasmHeapBytes: () => m.wasmHeapBytes(),

    gptNeoxConfig(opts) {
      const o = check.options(opts, 'gptNeoxConfig', ['preset', 'config']);
      return call(m.gptNeoxConfig, configArg(o, 'gptNeoxConfig'));
    },

    gptNeoxRandom(opts) {
      const o = check.options(opts, 'gptNeoxRandom', ['preset', 'config', 'seed', 'dtype']);
      const seed = o.seed === undefined ? 0 : check.integer(o.seed, 'seed');
      const dtype = o.dtype === undefined ? 'F32' : check.string(o.dtype, 'dtype');
      return wrapModel(call(m.gptNeoxRandom, configArg(o, 'gptNeoxRandom'), seed, dtype).model);
    },

    gptNeoxLoader(opts) {
      const o = check.options(opts, 'gptNeoxLoader', ['header', 'fileSize', 'name', 'preset', 'config']);
      const name = o.name === undefined ? 'model.safetensors' : check.string(o.name, 'name');
      const config = configArg(o, 'gptNeoxLoader');
      const r = call(m.gptNeoxLoader, bytes(o.header, 'header'), check.integer(o.fileSize, 'fileSize'), name, config);
      const raw = r.loader;
      let live = true;
      const alive = () => {
        if (!live) throw new PosLabError('this GPT-NeoX loader was deleted');
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

    /** 'gpt2' | 'gpt_neox' from a checkpoint's first 8 + N bytes (safetensorsHeaderLength gives N). */
    architectureOf(header, fileSize, name) {
      return call(
        m.lmArchitectureOfCheckpoint,
        bytes(header, 'header'),
        check.integer(fileSize, 'fileSize'),
        name === undefined ? 'model.safetensors' : check.string(name, 'name'),
      );
    },

    /** config.json's model_type: 'gpt2' | 'gpt_neox', or null when it has none. */
    architectureOfConfig(text, name) {
      return call(
        m.lmArchitectureOfConfig,
        check.string(text, 'config'),
        name === undefined ? 'config.json' : check.string(name, 'name'),
      );
    },
  };
}
