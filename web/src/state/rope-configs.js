// The public configs the RoPE inspector bundles (content/rope-configs/<name>.json, sources in
// its SOURCES.md), in the order its menu lists them. Names only: the registry reads this, and
// each config's text is loaded by the view when picked.
export const ROPE_CONFIGS = [
  ['llama-3.1-8b', 'Llama-3.1-8B (llama3 scaling)'],
  ['llama-3.2-1b', 'Llama-3.2-1B (llama3 scaling)'],
  ['qwen2.5-7b', 'Qwen2.5-7B'],
  ['qwen3-8b-yarn', 'Qwen3-8B with YaRN'],
  ['gemma-3-4b', 'Gemma-3-4B (local and global layers)'],
  ['mistral-7b-v0.1', 'Mistral-7B-v0.1 (sliding window)'],
  ['phi-3-mini-128k', 'Phi-3-mini-128k (longrope)'],
  ['gpt-oss-20b', 'gpt-oss-20b (YaRN, alternating window)'],
  ['smollm3-3b', 'SmolLM3-3B (NoPE every 4th layer)'],
  ['llama-4-scout', 'Llama-4-Scout, first release (NoPE layers, chunks)'],
  ['llama-4-scout-17b-16e', 'Llama-4-Scout-17B-16E (llama3 × 16, equal bands; NoPE temperature)'],
  ['deepseek-v3', 'DeepSeek-V3 (MLA: 64 of 192 dims rotate; YaRN mscale)'],
  ['deepseek-v2.5', 'DeepSeek-V2.5 (MLA, YaRN mscale)'],
  ['qwen2-vl-7b', 'Qwen2-VL-7B-Instruct (M-RoPE)'],
  ['qwen2.5-vl-7b', 'Qwen2.5-VL-7B-Instruct (M-RoPE)'],
];

/** The menu's values: the bundled names, then 'pasted' (the text box or a file). */
export const ROPE_CONFIG_CHOICES = [...ROPE_CONFIGS.map(([name]) => name), 'pasted'];
