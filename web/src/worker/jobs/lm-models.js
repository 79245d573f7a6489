// The language models the Long context and Position lens jobs make or load on the
// language-model module: random-weight models of fixed shapes (RANDOM_MODELS), and a local
// checkpoint (model.safetensors + config.json, + tokenizer.json) streamed into its
// architecture's loader.
import { architecture } from '../../lm/architectures.js';
import { loadTokenizerJson } from '../../lm/tokenizer.js';

// Random-weight models: Pythia-70m's shapes (what the runtimes are measured on), and tiny
// ones of the same vocabulary and trained context 64 for quick looks and tests: GPT-NeoX, and
// a grouped-query Llama. `random` names the API's random-init function.
export const RANDOM_MODELS = {
  'pythia-70m': { random: 'gptNeoxRandom', preset: 'pythia-70m', label: 'random weights of Pythia-70m’s shapes' },
  tiny: {
    random: 'gptNeoxRandom',
    config: {
      model_type: 'gpt_neox',
      vocab_size: 50304,
      hidden_size: 64,
      num_hidden_layers: 2,
      num_attention_heads: 2,
      intermediate_size: 64,
      max_position_embeddings: 64,
    },
    label: 'random weights of a tiny GPT-NeoX (trained context 64)',
  },
  'tiny-llama': {
    random: 'llamaRandom',
    config: JSON.stringify({
      model_type: 'llama',
      vocab_size: 50304,
      hidden_size: 64,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      intermediate_size: 128,
      max_position_embeddings: 64,
    }),
    label: 'random weights of a tiny Llama (grouped-query, trained context 64)',
  },
};

/** RANDOM_MODELS[name] with random weights from `seed`: { model, label }; an unknown name is refused. */
export function randomModel(lab, name, seed) {
  const spec = RANDOM_MODELS[name];
  if (!spec) throw Object.assign(new RangeError(`unknown model '${name}'`), { field: 'model' });
  const { label, random, ...choice } = spec;
  return { model: lab[random]({ ...choice, seed }), label };
}

const CHUNK = 8 << 20; // bytes read from a checkpoint File at a time

/** A File's text (or a string as it is). */
export async function readText(file) {
  return typeof file === 'string' ? file : file.text();
}

/**
 * A checkpoint File streamed into its architecture's loader (config.json's model_type; GPT-NeoX
 * when it has none), with tokenizer.json when given. `refuse(arch)`: why this caller cannot use
 * the architecture (checked before anything is read past the config), or null.
 * @returns {Promise<{ model: any, tokenizer: any, label: string, arch: any, configText: string }>}
 */
export async function fileModel(lab, files, progress, { refuse = () => null } = {}) {
  const { weights, config, tokenizer } = files;
  const configText = await readText(config);
  let type;
  try {
    type = JSON.parse(configText)?.model_type ?? 'gpt_neox';
  } catch (e) {
    throw Object.assign(new Error(`${config.name ?? 'config.json'}: not valid JSON (${e.message})`), {
      field: 'model',
    });
  }
  let arch;
  try {
    arch = architecture(type);
  } catch (e) {
    throw Object.assign(new Error(e.message), { field: 'model' });
  }
  const why = refuse(arch);
  if (why) throw Object.assign(new Error(why), { field: 'model' });
  const head8 = new Uint8Array(await weights.slice(0, 8).arrayBuffer());
  const N = lab.safetensorsHeaderLength(head8, weights.size, weights.name);
  const header = new Uint8Array(await weights.slice(0, 8 + N).arrayBuffer());
  const loader = lab[arch.loader]({ header, fileSize: weights.size, name: weights.name, config: configText });
  try {
    for (let at = 8 + N; at < weights.size; at += CHUNK) {
      loader.append(new Uint8Array(await weights.slice(at, at + CHUNK).arrayBuffer()));
      progress?.({ phase: 'load', fraction: Math.min(1, (at + CHUNK) / weights.size) });
    }
    const model = loader.finish();
    const tok = tokenizer
      ? await loadTokenizerJson(await readText(tokenizer), tokenizer.name ?? 'tokenizer.json')
      : null;
    return { model, tokenizer: tok, label: `${weights.name} (${config.name ?? 'config.json'})`, arch, configText };
  } finally {
    loader.delete();
  }
}

/** A checkpoint's identity for caches: its name, size and date. */
export const fileKey = (files) =>
  files?.weights ? `${files.weights.name}:${files.weights.size}:${files.weights.lastModified}` : '';
