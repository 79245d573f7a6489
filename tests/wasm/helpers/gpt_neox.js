// Tiny language-model checkpoints for the wasm suite (GPT-NeoX's and a Llama's configs),
// written by the native CLI (`poslab lm-random`) so the file the wasm loader reads is the one the
// CLI computes on.
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from './cli.js';
import { loadInChunks } from './lm.js';

// 4 heads of d = 8, R = int(8·0.5) = 4 rotated dims, trained context 16 (so T = 24 is past it).
export const TINY_NEOX = {
  model_type: 'gpt_neox',
  vocab_size: 100,
  hidden_size: 32,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  intermediate_size: 64,
  max_position_embeddings: 16,
  rotary_pct: 0.5,
};

// A tiny Llama with grouped-query heads (4 query heads share 2 kv heads of d = 8, so P = 4
// rotation pairs), trained context 12: the lens's and position surgery's wasm-vs-CLI model.
export const TINY_LLAMA = {
  model_type: 'llama',
  vocab_size: 100,
  hidden_size: 32,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  intermediate_size: 48,
  max_position_embeddings: 12,
};

/** `poslab lm-random` of any architecture's config into dir: { weights, config, bytes, configText }. */
export async function writeTinyLm(dir, { config = TINY_NEOX, seed = 3, dtype = 'F32' } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  const given = path.join(dir, 'given.json');
  fs.writeFileSync(given, JSON.stringify(config));
  const out = path.join(dir, 'model');
  const { code, stderr } = await runCli(['lm-random', '--config', given, '--seed', seed, '--dtype', dtype, '-o', out]);
  if (code !== 0) throw new Error(`poslab lm-random: ${stderr}`);
  const weights = path.join(out, 'model.safetensors');
  const configPath = path.join(out, 'config.json');
  return {
    weights,
    config: configPath,
    bytes: new Uint8Array(fs.readFileSync(weights)),
    configText: fs.readFileSync(configPath, 'utf8'),
  };
}

/** A checkpoint's bytes through gptNeoxLoader in `chunk`-byte pieces. */
export const loadNeoxInChunks = (lab, bytes, chunk, config) =>
  loadInChunks(lab, 'gptNeoxLoader', bytes, chunk, { config });
