// What the language models' JS APIs (gpt2.js, gpt-neox.js) share over the handles of
// cpp/wasm/lm_bindings.hpp, parametrised by an architecture description: the config, bytes,
// checkpoint, tokens and precision arguments, the model and loader handles that live in the
// wasm heap until .delete(), and each architecture's config / random / loader methods.
import { PosLabError } from './errors.js';
import { guardMethods, unwrap } from './raw.js';
import * as check from './validate.js';

// A raw binding's { error } becomes a PosLabError (and so does anything it throws:
// guardMethods wraps every method handed out).
export const call = (fn, ...args) => unwrap(fn(...args));

export const bytesArg = (value, name) => {
  if (!(value instanceof Uint8Array)) throw new PosLabError(`${name} must be a Uint8Array`, { field: name });
  return value;
};

// { preset } | { config: object | config.json text } | {} → what the binding takes; {} is
// undefined, or refused with `required`'s message when the architecture needs a config.
export const configArg = (o, name, required) => {
  if (o.preset !== undefined && o.config !== undefined) {
    throw new PosLabError(`${name}: give preset or config, not both`, { field: 'config' });
  }
  if (o.preset !== undefined) return { preset: check.string(o.preset, 'preset') };
  if (o.config === undefined) {
    if (required) throw new PosLabError(`${name}: ${required}`, { field: 'config' });
    return undefined;
  }
  if (typeof o.config === 'string') return o.config;
  if (o.config === null || typeof o.config !== 'object' || Array.isArray(o.config)) {
    throw new PosLabError(`${name}: config must be config.json's object or text`, { field: 'config' });
  }
  return JSON.stringify(o.config);
};

// (bytes, fileSize, name) of a checkpoint file → the bindings' arguments; `bytesName` names
// the bytes (its first 8, or its header) in errors.
export const checkpointArgs = (value, bytesName, fileSize, name) => [
  bytesArg(value, bytesName),
  check.integer(fileSize, 'fileSize'),
  name === undefined ? 'model.safetensors' : check.string(name, 'name'),
];

// An array of token ids or an Int32Array → Int32Array; `model` names the architecture.
export const tokenArray = (tokens, model) => {
  const list = tokens instanceof Int32Array ? tokens : Array.isArray(tokens) ? tokens : null;
  const field = { field: 'tokens' };
  if (!list) throw new PosLabError('tokens must be an array of token ids or an Int32Array', field);
  if (Array.isArray(list)) list.forEach((id, i) => check.integer(id, `tokens[${i}]`, 0, 'tokens'));
  else list.forEach((id, i) => id < 0 && check.integer(id, `tokens[${i}]`, 0, 'tokens'));
  if (list.length === 0) throw new PosLabError(`${model} needs at least one token`, field);
  return Int32Array.from(list, (id) => {
    if (id > 0x7fffffff) throw new PosLabError(`token ${id} is outside the vocabulary`, field);
    return id;
  });
};

// forward's precision: 'float' (the default) | 'double'.
export const precisionArg = (value) => {
  const precision = value === undefined ? 'float' : check.string(value, 'precision');
  if (precision !== 'float' && precision !== 'double') {
    throw new PosLabError(`unknown precision '${precision}' (expected float or double)`, { field: 'precision' });
  }
  return precision;
};

// A handle freed by delete(): `methods(alive)` builds its fields and methods, alive() giving
// the raw handle or refusing once deleted ('this <what> was deleted').
const wrapHandle = (raw, what, methods) => {
  let live = true;
  const alive = () => {
    if (!live) throw new PosLabError(`this ${what} was deleted`);
    return raw;
  };
  return guardMethods({
    ...methods(alive),
    delete() {
      if (live) raw.delete();
      live = false;
    },
  });
};

const LENS_KEYS = ['period', 'seed', 'shift', 'localWindow', 'precision', 'rope', 'surgery'];
const SURGERY_KEYS = ['ropeZeroPairs', 'nopeLayers', 'nopeHeads', 'ropeBase', 'ropeLocalBase', 'ablateHeads'];
const SWEEP_KEYS = ['sweep', 'group', 'bases', 'window', 'seed', 'surgery', 'precision', 'rope', 'onProgress'];

const listArg = (value, name, what) => {
  if (!Array.isArray(value)) throw new PosLabError(`${name} must be an array of ${what}`, { field: name });
  return value;
};

// [[a, b], …]: pairs of non-negative integers (ranges or [layer, head]); the core checks them
// against the model.
const pairsArg = (value, name, what) =>
  listArg(value, name, what).map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new PosLabError(`${name}[${i}] must be a pair [a, b] of integers`, { field: name });
    }
    return pair.map((x, k) => check.integer(x, `${name}[${i}][${k}]`, 0, name));
  });

/**
 * Position surgery's interventions ({ ropeZeroPairs?: [[a, b], …], nopeLayers?: number[],
 * nopeHeads?: [[layer, head], …], ropeBase?, ropeLocalBase?, ablateHeads?: [[layer, head], …] }):
 * types here, ranges in the core (check_surgery, against the model).
 */
export const surgeryArg = (value) => {
  const o = check.options(value, 'surgery', SURGERY_KEYS, 'surgery');
  const out = {};
  if (o.ropeZeroPairs !== undefined)
    out.ropeZeroPairs = pairsArg(o.ropeZeroPairs, 'ropeZeroPairs', '[first, last] pair ranges');
  if (o.nopeLayers !== undefined) {
    out.nopeLayers = listArg(o.nopeLayers, 'nopeLayers', 'layer indices').map((l, i) =>
      check.integer(l, `nopeLayers[${i}]`, 0, 'nopeLayers'),
    );
  }
  if (o.nopeHeads !== undefined) out.nopeHeads = pairsArg(o.nopeHeads, 'nopeHeads', '[layer, head] pairs');
  for (const key of ['ropeBase', 'ropeLocalBase']) if (o[key] !== undefined) out[key] = check.number(o[key], key);
  if (o.ablateHeads !== undefined) out.ablateHeads = pairsArg(o.ablateHeads, 'ablateHeads', '[layer, head] pairs');
  return out;
};

/**
 * The position lens's options ({ period?, seed?, shift?, localWindow?, precision?, rope?,
 * surgery? }): types here, ranges and rope's keys in the core (lens_options.hpp, as forward's rope).
 */
export const lensArgs = (opts, name) => {
  const o = check.options(opts, name, LENS_KEYS);
  const args = {};
  for (const key of ['period', 'seed', 'shift', 'localWindow']) {
    if (o[key] !== undefined) args[key] = check.integer(o[key], key);
  }
  if (o.precision !== undefined) args.precision = precisionArg(o.precision);
  if (o.rope !== undefined) args.rope = o.rope; // its keys: the core's, as forward's rope
  if (o.surgery !== undefined) args.surgery = surgeryArg(o.surgery);
  return args;
};

/**
 * lensMap's options { layer, head, rope?, surgery? }: which head's attention map, and lens()'s
 * rope and surgery.
 */
export const lensMapArgs = (opts, name) => {
  const o = check.options(opts, name, ['layer', 'head', 'rope', 'surgery']);
  const args = {
    layer: o.layer === undefined ? 0 : check.integer(o.layer, 'layer', 0),
    head: o.head === undefined ? 0 : check.integer(o.head, 'head', 0),
  };
  if (o.rope !== undefined) args.rope = o.rope; // its keys: the core's, as forward's rope
  if (o.surgery !== undefined) args.surgery = surgeryArg(o.surgery);
  return args;
};

/**
 * A surgery sweep's options ({ sweep, group?, bases?, window?, seed?, surgery?, precision?,
 * rope?, onProgress? }) → { args } for the binding and the caller's onProgress: types here; the
 * sweep's name, ranges and which options go with which sweep in the core (surgery_js.hpp).
 */
export const surgeryArgs = (opts, name) => {
  const o = check.options(opts, name, SWEEP_KEYS);
  if (o.sweep === undefined) {
    throw new PosLabError(`${name} needs a sweep: bands, layers, heads, base or single`, { field: 'sweep' });
  }
  const args = { sweep: check.string(o.sweep, 'sweep') };
  for (const key of ['group', 'window', 'seed']) if (o[key] !== undefined) args[key] = check.integer(o[key], key);
  if (o.bases !== undefined) {
    args.bases = listArg(o.bases, 'bases', 'numbers').map((b, i) => check.number(b, `bases[${i}]`, 'bases'));
  }
  if (o.surgery !== undefined) args.surgery = surgeryArg(o.surgery);
  if (o.precision !== undefined) args.precision = precisionArg(o.precision);
  if (o.rope !== undefined) args.rope = o.rope; // its keys: the core's, as forward's rope
  const { onProgress } = o;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new PosLabError('onProgress must be a function (done, total) => void', { field: 'onProgress' });
  }
  return { args, onProgress };
};

/**
 * Runs a sweep: `run(progress)` calls the binding with `progress` as its onProgress (undefined
 * when the caller gave none) and returns surgery.json's text, parsed here. What the caller's
 * onProgress throws stops the sweep (the binding's progress answers false) and is thrown again.
 */
export const runSurgery = (run, onProgress) => {
  let stopped = null;
  const progress =
    onProgress &&
    ((done, total) => {
      try {
        onProgress(done, total);
        return true;
      } catch (cause) {
        stopped = { cause };
        return false;
      }
    });
  let text;
  try {
    text = call(() => run(progress));
  } catch (error) {
    if (stopped) throw stopped.cause;
    throw error;
  }
  return JSON.parse(text);
};

// A model handle: config, bytes, dtype, `extra` fields, forward(tokens, opts) as
// `forward(alive, tokens, opts, config)` runs it, and the position lens: lens(tokens, opts)
// (lens.json's report as an object, number lists as typed arrays) and lensMap(tokens, opts);
// with `surgery` (the RoPE models), the position-surgery sweep surgery(tokens, opts)
// (surgery.json's report as an object) and the surgery option of forward, lens and lensMap.
export const wrapModel = (raw, model, forward, extra = {}, surgery = false) => {
  const config = raw.config();
  // The learned-position models' lens refuses surgery in the core; lensMap runs forward here.
  const noSurgery = () =>
    new PosLabError(
      `${model} learns its positions: position surgery is for the RoPE models (GPT-NeoX, the Llama family) and the lab's checkpoints`,
      { field: 'surgery' },
    );
  const sweep = (alive) => ({
    surgery(tokens, opts) {
      const { args, onProgress } = surgeryArgs(opts, 'surgery');
      const ids = tokenArray(tokens, model);
      const handle = alive();
      return runSurgery(
        (progress) => handle.surgery(ids, progress ? { ...args, onProgress: progress } : args),
        onProgress,
      );
    },
  });
  return wrapHandle(raw, `${model} model`, (alive) => ({
    ...extra,
    config,
    bytes: raw.bytes(),
    dtype: raw.dtype(),
    forward: (tokens, opts) => forward(alive, tokens, opts, config),
    lens(tokens, opts) {
      const args = lensArgs(opts, 'lens');
      const ids = tokenArray(tokens, model);
      const handle = alive();
      return call(() => handle.lens(ids, args));
    },
    // The traced forward's map of one head (the module carries no second path for it).
    lensMap(tokens, opts) {
      const { layer, head, rope, surgery: intervention } = lensMapArgs(opts, 'lensMap');
      if (intervention && !surgery) throw noSurgery();
      const traceOptions = { trace: true, topK: 1 };
      if (rope) traceOptions.rope = rope;
      if (intervention) traceOptions.surgery = intervention;
      const traced = forward(alive, tokens, traceOptions, config);
      const layers = traced.layers.length;
      if (layer >= layers) throw new PosLabError(`layer ${layer} is past the model's ${layers}`, { field: 'layer' });
      const { data, shape } = traced.layers[layer].attention; // (H, T, T)
      const [H, T] = shape;
      if (head >= H) throw new PosLabError(`head ${head} is past the layer's ${H}`, { field: 'head' });
      return { size: T, attention: data.slice(head * T * T, (head + 1) * T * T) };
    },
    ...(surgery ? sweep(alive) : {}),
  }));
};

// A loader handle over the binding's { loader, tensors | shards, config }: append the file's
// bytes after the header in order (a sharded checkpoint's: each shard's in `shards` order,
// nextFile() between two), then finish() → the model, wrapped by `wrap`.
export const wrapLoader = (r, model, wrap) =>
  wrapHandle(r.loader, `${model} loader`, (alive) => ({
    ...(r.shards ? { shards: r.shards } : { tensors: r.tensors }),
    config: r.config,
    expected: r.loader.expected(),
    received: () => alive().received(),
    append(chunk) {
      const loader = alive();
      call(() => loader.append(bytesArg(chunk, 'chunk')));
    },
    nextFile() {
      const loader = alive();
      call(() => loader.nextFile());
    },
    finish() {
      const loader = alive();
      return wrap(call(() => loader.finish()).model);
    },
  }));

/**
 * An architecture's methods <api>Config, <api>Random and <api>Loader over the bindings of the
 * same names, e.g. gpt2Config over m.gpt2Config.
 * @param {any} m the instantiated module
 * @param {{ api: string, label: string, required?: string,
 *   randomOptions?: Record<string, string>, forward: Function, extra?: object, surgery?: boolean }} arch
 *   label: its name in messages; required: why a preset or config is needed (none: optional);
 *   randomOptions: <api>Random's string options beyond seed and their defaults, passed to the
 *   binding in this order; forward, extra and surgery: the model handle's (wrapModel)
 */
export function familyMethods(m, { api, label, required, randomOptions = {}, forward, extra, surgery = false }) {
  const [configName, randomName, loaderName] = [`${api}Config`, `${api}Random`, `${api}Loader`];
  const shardedName = `${api}ShardedLoader`;
  const wrap = (raw) => wrapModel(raw, label, forward, extra, surgery);
  const methods = {
    [configName](opts) {
      const o = check.options(opts, configName, ['preset', 'config']);
      return call(m[configName], configArg(o, configName, required));
    },
    [randomName](opts) {
      const o = check.options(opts, randomName, ['preset', 'config', 'seed', ...Object.keys(randomOptions)]);
      const seed = o.seed === undefined ? 0 : check.integer(o.seed, 'seed');
      const more = Object.entries(randomOptions).map(([key, fallback]) =>
        o[key] === undefined ? fallback : check.string(o[key], key),
      );
      return wrap(call(m[randomName], configArg(o, randomName, required), seed, ...more).model);
    },
    [loaderName](opts) {
      const o = check.options(opts, loaderName, ['header', 'fileSize', 'name', 'preset', 'config']);
      const file = checkpointArgs(o.header, 'header', o.fileSize, o.name);
      return wrapLoader(call(m[loaderName], ...file, configArg(o, loaderName, required)), label, wrap);
    },
  };
  // index: model.safetensors.index.json's text; shards: [{ name, header, fileSize }], one per
  // file it names. GPT-2's module part has none: its checkpoints ship whole.
  if (m[shardedName]) {
    methods[shardedName] = (opts) => {
      const o = check.options(opts, shardedName, ['index', 'name', 'shards', 'preset', 'config']);
      const index = check.string(o.index, 'index');
      const name = o.name === undefined ? 'model.safetensors.index.json' : check.string(o.name, 'name');
      if (!Array.isArray(o.shards))
        throw new PosLabError('shards must be an array of { name, header, fileSize }, one per shard file', {
          field: 'shards',
        });
      const shards = o.shards.map((shard, i) => {
        const s = check.options(shard, `shards[${i}]`, ['name', 'header', 'fileSize']);
        const [header, fileSize, file] = checkpointArgs(s.header, `shards[${i}].header`, s.fileSize, s.name);
        return { name: file, header, fileSize };
      });
      return wrapLoader(call(m[shardedName], index, name, shards, configArg(o, shardedName, required)), label, wrap);
    };
  }
  return methods;
}
