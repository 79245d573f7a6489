// The text experiment's runs ("Train short, test long", Press et al. 2022): one byte-level
// language model per method on the same text, each a `poslab train --task text` run in a worker
// of its own (lab/runs.js). The text travels beside the configuration, and the cache keys a
// run by its configuration and which text it read.
import { attentionFlags } from './example.js';
import { attentionOptions } from './presets.js';

/** Which text a run read, for the cache: the sample, or a file by its length and FNV-1a hash. */
export function textId(bytes, isSample) {
  if (isSample) return 'sample';
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return `file:${bytes.length}:${h.toString(16).padStart(8, '0')}`;
}

/**
 * The runs of the view's settings `s` ({ methods, N, M, steps, seed }, and the attention options
 * of lab/presets.js attentionOptions) on `text` (its bytes and id): [{ id, method, config, text,
 * cacheKey }], config being the JS API's (createRun).
 */
export function textPlan(s, text) {
  return s.methods.map((method) => {
    const config = {
      task: 'text',
      position: method,
      trainLen: s.N,
      testLen: s.M,
      steps: s.steps,
      seed: s.seed,
      ...attentionOptions(s, method),
    };
    return { id: method, method, config, text: text.bytes, cacheKey: { ...config, text: text.id } };
  });
}

/** The command line of one run of the plan, for the CLI. */
export const textCommand = (c, file = 'text.txt') =>
  `poslab train --task text --text-file ${file} --position ${c.position} --train-len ${c.trainLen} ` +
  `--test-len ${c.testLen} --steps ${c.steps} --seed ${c.seed}${attentionFlags(c)} -o result.json`;
