// What the RoPE language models' APIs share (gpt-neox.js, llama.js): forward(tokens, {
// precision, trace, topK, logits, lossByPosition, rope, surgery }) over a model handle, with
// `rope` a scaling in place of the config's and `surgery` position surgery inside the pass (the
// binding's rope_lm_bindings.hpp).
import { PosLabError } from './errors.js';
import { call, precisionArg, surgeryArg, tokenArray } from './lm-common.js';
import * as check from './validate.js';

const ROPE_KEYS = ['scaling', 'factor', 'originalLength', 'lowFreqFactor', 'highFreqFactor', 'betaFast', 'betaSlow'];
const FORWARD_KEYS = ['precision', 'trace', 'topK', 'logits', 'lossByPosition', 'rope', 'surgery'];

/**
 * The core's scalings ('none' first) and the forward of a RoPE model handle; `label` ("Llama")
 * words the token refusals.
 */
export function ropeModelForward(m, label) {
  const ropeScalings = Object.freeze(m.ropeScalings());

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

  const forward = (alive, tokens, opts) => {
    const o = check.options(opts, 'forward', FORWARD_KEYS);
    const args = {
      precision: precisionArg(o.precision),
      topK: o.topK === undefined ? 10 : check.integer(o.topK, 'topK', 1),
      trace: o.trace === undefined ? false : check.boolean(o.trace, 'trace'),
      logits: o.logits === undefined ? true : check.boolean(o.logits, 'logits'),
      lossByPosition: o.lossByPosition === undefined ? false : check.boolean(o.lossByPosition, 'lossByPosition'),
    };
    const rope = ropeArg(o.rope);
    if (rope) args.rope = rope;
    if (o.surgery !== undefined) args.surgery = surgeryArg(o.surgery);
    const ids = tokenArray(tokens, label);
    const handle = alive();
    return call(() => handle.forward(ids, args));
  };
  return { ropeScalings, forward };
}
