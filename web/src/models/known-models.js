// The models the Models view can fetch from a hub in one click: which repository, which files,
// which architecture's runtime reads the weights and which tokenizer reads the text. A model's
// kind is data here, so a new architecture is a row plus its runtime (runtimes.js), not new
// download code. Sizes are the Hub's listed sizes of model.safetensors (for the button's
// label before a download starts; the progress bar uses the file's real Content-Length).

/**
 * @typedef {import('../lm/architectures.js').Architecture} Architecture config.json's model_type
 * @typedef {'tiktoken-gpt2' | 'tokenizer-json'} TokenizerKind GPT-2's ranks shipped in
 *   js-tiktoken (no file to fetch), or the repository's tokenizer.json through
 *   @huggingface/tokenizers
 * @typedef {{ id: string, label: string, repo: string, architecture: Architecture,
 *   weights: string, config: string, tokenizerFiles: string[], tokenizer: TokenizerKind,
 *   approxBytes: number }} KnownModel
 */

/** @type {readonly KnownModel[]} in button order */
export const KNOWN_MODELS = Object.freeze([
  {
    id: 'gpt2',
    label: 'GPT-2 small',
    repo: 'openai-community/gpt2',
    architecture: 'gpt2',
    weights: 'model.safetensors',
    config: 'config.json',
    tokenizerFiles: [],
    tokenizer: 'tiktoken-gpt2',
    approxBytes: 548e6,
  },
  {
    id: 'gpt2-medium',
    label: 'GPT-2 medium',
    repo: 'openai-community/gpt2-medium',
    architecture: 'gpt2',
    weights: 'model.safetensors',
    config: 'config.json',
    tokenizerFiles: [],
    tokenizer: 'tiktoken-gpt2',
    approxBytes: 1.52e9,
  },
  {
    id: 'pythia-70m',
    label: 'Pythia-70m',
    repo: 'EleutherAI/pythia-70m',
    architecture: 'gpt_neox',
    weights: 'model.safetensors',
    config: 'config.json',
    tokenizerFiles: ['tokenizer.json'],
    tokenizer: 'tokenizer-json',
    approxBytes: 166e6,
  },
  {
    id: 'pythia-160m',
    label: 'Pythia-160m',
    repo: 'EleutherAI/pythia-160m',
    architecture: 'gpt_neox',
    weights: 'model.safetensors',
    config: 'config.json',
    tokenizerFiles: ['tokenizer.json'],
    tokenizer: 'tokenizer-json',
    approxBytes: 375e6,
  },
  // The Llama family ships BF16 (half the bytes of F32), and the core keeps it so: the model
  // takes its file's size in the 2 GiB heap.
  {
    id: 'smollm2-135m',
    label: 'SmolLM2-135M',
    repo: 'HuggingFaceTB/SmolLM2-135M',
    architecture: 'llama',
    weights: 'model.safetensors',
    config: 'config.json',
    tokenizerFiles: ['tokenizer.json'],
    tokenizer: 'tokenizer-json',
    approxBytes: 269e6,
  },
  {
    id: 'smollm2-360m',
    label: 'SmolLM2-360M',
    repo: 'HuggingFaceTB/SmolLM2-360M',
    architecture: 'llama',
    weights: 'model.safetensors',
    config: 'config.json',
    tokenizerFiles: ['tokenizer.json'],
    tokenizer: 'tokenizer-json',
    approxBytes: 724e6,
  },
  // 494M parameters in BF16: 988 MB, which fits the 2 GiB heap only because BF16 stays BF16.
  {
    id: 'qwen2.5-0.5b',
    label: 'Qwen2.5-0.5B',
    repo: 'Qwen/Qwen2.5-0.5B',
    architecture: 'qwen2',
    weights: 'model.safetensors',
    config: 'config.json',
    tokenizerFiles: ['tokenizer.json'],
    tokenizer: 'tokenizer-json',
    approxBytes: 988e6,
  },
  // 596M parameters (q/k norms, head_dim 128, tied): 1.2 GB held in BF16. Its file is the Hub's
  // listed 1.5 GB; a tied model's saved lm_head.weight, if the file has one, is skipped.
  {
    id: 'qwen3-0.6b',
    label: 'Qwen3-0.6B',
    repo: 'Qwen/Qwen3-0.6B',
    architecture: 'qwen3',
    weights: 'model.safetensors',
    config: 'config.json',
    tokenizerFiles: ['tokenizer.json'],
    tokenizer: 'tokenizer-json',
    approxBytes: 1.5e9,
  },
]);

/** The known model with this id (undefined when there is none). */
export const knownModel = (id) => KNOWN_MODELS.find((m) => m.id === id);

/** The known model stored from this repository (undefined for any other repository). */
export const knownModelOfRepo = (repo) => KNOWN_MODELS.find((m) => m.repo === repo);

/** Every file a model needs, the small ones first and the weights last (the download order). */
export const filesOf = (m) => [m.config, ...m.tokenizerFiles, m.weights];
