// Tiny checkpoints of the hub's models for the browser and unit tests: GPT-NeoX (Pythia) and
// Llama (SmolLM2) checkpoints written tensor by tensor under Hugging Face's names, their
// config.json, and a
// small byte-level BPE tokenizer.json that @huggingface/tokenizers reads (GPT-2 small's
// tiny twin comes from safetensors.js's tinyGpt2Tensors).
import { llamaLayout, neoxLayout } from './model-layouts.js';
import { seededTensors } from './safetensors.js';

/** A 2-layer GPT-NeoX config (HF keys) whose vocabulary covers tinyTokenizerJson's. */
export const TINY_NEOX_CONFIG = Object.freeze({
  architectures: ['GPTNeoXForCausalLM'],
  model_type: 'gpt_neox',
  vocab_size: 320,
  hidden_size: 32,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  intermediate_size: 128,
  max_position_embeddings: 64,
  rotary_pct: 0.25,
  rotary_emb_base: 10000,
  use_parallel_residual: true,
  layer_norm_eps: 1e-5,
  tie_word_embeddings: false,
  hidden_act: 'gelu',
  bos_token_id: 0,
  eos_token_id: 0,
});

/** The tensors of a GPT-NeoX with `config` (HF keys, model-layouts.js), seeded (seededTensors). */
export function tinyNeoxTensors(config = TINY_NEOX_CONFIG, seed = 3, dtype = 'F16') {
  return seededTensors(neoxLayout(config), seed, dtype);
}

/** A 2-layer Llama config (SmolLM2's keys, grouped-query, tied, BF16 as SmolLM2 ships). */
export const TINY_LLAMA_CONFIG = Object.freeze({
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  vocab_size: 320,
  hidden_size: 32,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  intermediate_size: 64,
  max_position_embeddings: 64,
  rope_theta: 100000,
  rms_norm_eps: 1e-5,
  tie_word_embeddings: true,
  hidden_act: 'silu',
  torch_dtype: 'bfloat16',
  bos_token_id: 0,
  eos_token_id: 0,
});

/**
 * TINY_LLAMA_CONFIG widened past the float kernels' thresholds, so its forward pass runs the
 * packed GEMM, attention's blocks and their thread split (base/threads.hpp): what the browser
 * tests of the threaded and relaxed builds run at T = 128.
 */
export const KERNEL_LLAMA_CONFIG = Object.freeze({
  ...TINY_LLAMA_CONFIG,
  hidden_size: 128,
  intermediate_size: 512,
  vocab_size: 1000,
  max_position_embeddings: 256,
});

/** The tensors of a Llama with `config` (HF keys, model-layouts.js), seeded, BF16 by default. */
export function tinyLlamaTensors(config = TINY_LLAMA_CONFIG, seed = 5, dtype = 'BF16') {
  return seededTensors(llamaLayout(config), seed, dtype);
}

/** GPT-2's byte → printable character table (byte-level BPE spells every byte as one char). */
function bytesToUnicode() {
  const bs = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n++);
    }
  }
  const map = new Map();
  bs.forEach((b, i) => map.set(b, String.fromCodePoint(cs[i])));
  return map;
}

// Merges in rank order; every result is in the vocabulary.
const MERGES = [
  ['Ġ', 't'],
  ['h', 'e'],
  ['Ġt', 'he'],
  ['Ġ', 'c'],
  ['a', 't'],
  ['Ġc', 'at'],
  ['Ġ', 's'],
  ['Ġs', 'at'],
  ['Ġ', 'm'],
  ['Ġm', 'at'],
  ['l', 'o'],
  ['he', 'l'],
  ['hel', 'lo'],
  ['H', 'el'],
  ['e', 'l'],
];

/** Token ids of the tiny tokenizer: 0 <|endoftext|>, 1 <|padding|>, 2 + byte, then the merges. */
export function tinyTokenizerJson() {
  const b2u = bytesToUnicode();
  const vocab = { '<|endoftext|>': 0, '<|padding|>': 1 };
  for (let b = 0; b < 256; b++) vocab[b2u.get(b)] = 2 + b;
  for (const [a, b] of MERGES) vocab[a + b] ??= Object.keys(vocab).length;
  const special = (id, content) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special(0, '<|endoftext|>'), special(1, '<|padding|>')],
    normalizer: { type: 'NFC' },
    pre_tokenizer: byteLevel,
    post_processor: { ...byteLevel, trim_offsets: false },
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges: MERGES.map(([a, b]) => `${a} ${b}`),
    },
  };
}
