// The tokenizers of the Models view, one API for both kinds (encode, decode, piece, vocabSize):
// GPT-2's byte-pair tokenizer (the released 50 257-token vocabulary, shipped inside the
// js-tiktoken package: no network), and a model's own tokenizer.json (Pythia's) read by
// @huggingface/tokenizers, whose text the page fetched and stored. Both load with dynamic
// imports on first use, so only this view pays for them; GPT-2's promise is shared.

let loading = null;

/** The shared tokenizer: { encode(text) → ids, piece(id) → text of one token, vocabSize }. */
export function loadTokenizer() {
  loading ??= (async () => {
    const [{ Tiktoken }, { default: ranks }] = await Promise.all([
      import('js-tiktoken/lite'),
      import('js-tiktoken/ranks/gpt2'),
    ]);
    return wrapTiktoken(new Tiktoken(ranks));
  })();
  // A failed import may succeed on a later try (e.g. a chunk request that was interrupted).
  loading.catch(() => (loading = null));
  return loading;
}

const strict = new TextDecoder('utf-8', { fatal: true });

/** The tokenizer API over a js-tiktoken instance (exported for tests). */
export function wrapTiktoken(tt) {
  // One token's bytes: the ranks table, or a special token's text (<|endoftext|> = 50256).
  const bytesOf = (id) => tt.textMap.get(id) ?? tt.inverseSpecialTokens[id] ?? null;
  return {
    vocabSize: 50257,
    /** Token ids of `text`; <|endoftext|> typed in the text is the special token 50256. */
    encode: (text) => tt.encode(text, 'all'),
    decode: (ids) => tt.decode(ids),
    /**
     * The text of one token. A token can hold part of a character (emoji and CJK are split
     * across tokens byte-wise); those come back as their bytes, e.g. "\\xe2\\x80".
     */
    piece(id) {
      const bytes = bytesOf(id);
      if (bytes === null) return null;
      try {
        return strict.decode(bytes);
      } catch {
        return Array.from(bytes, (b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
      }
    },
  };
}

/**
 * A model's tokenizer.json (its text, or the parsed object) through @huggingface/tokenizers,
 * with the API of wrapTiktoken. Throws naming the file when the library cannot read it.
 */
export async function loadTokenizerJson(json, name = 'tokenizer.json') {
  let value = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (e) {
      throw new Error(`${name}: not valid JSON (${e.message})`);
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || typeof value.model !== 'object') {
    throw new Error(`${name}: expected a tokenizer.json object with a "model" (as the tokenizers library writes it)`);
  }
  const { Tokenizer } = await import('@huggingface/tokenizers');
  let tok;
  try {
    // The second argument is tokenizer_config.json; what encoding needs is in tokenizer.json.
    tok = new Tokenizer(value, {});
  } catch (e) {
    throw new Error(`${name}: @huggingface/tokenizers cannot read it (${e.message})`);
  }
  return wrapTokenizerJson(tok);
}

/** The tokenizer API over an @huggingface/tokenizers Tokenizer (exported for tests). */
export function wrapTokenizerJson(tok) {
  const vocab = tok.model.vocab;
  // Byte-level vocabularies (GPT-2 style, Pythia's) spell each byte as one character: map the
  // token back to its bytes so a token holding part of a character shows its bytes.
  const byteDecoder = tok.decoder?.byte_decoder ?? null;
  const special = new Set(tok.all_special_ids);
  return {
    vocabSize: vocab.length,
    /** Token ids of `text`, as the model saw it in training (no special tokens added). */
    encode: (text) => tok.encode(text, { add_special_tokens: false }).ids,
    decode: (ids) => (ids.length === 0 ? '' : tok.decode(Array.from(ids), { clean_up_tokenization_spaces: false })),
    piece(id) {
      const token = vocab[id];
      if (token === undefined || token === null) return null;
      if (!byteDecoder || special.has(id)) return token;
      const bytes = Uint8Array.from([...token], (c) => byteDecoder[c] ?? 0x3f);
      try {
        return strict.decode(bytes);
      } catch {
        return Array.from(bytes, (b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
      }
    },
  };
}

/**
 * The tokenizer of a model kind: 'tiktoken-gpt2' (GPT-2's ranks, no files) or
 * 'tokenizer-json' (files['tokenizer.json'], its text).
 * @param {'tiktoken-gpt2' | 'tokenizer-json'} kind
 * @param {Record<string, string>} [files]
 */
export function loadTokenizerOf(kind, files = {}) {
  if (kind === 'tiktoken-gpt2') return loadTokenizer();
  if (kind === 'tokenizer-json') {
    const text = files['tokenizer.json'];
    if (typeof text !== 'string') return Promise.reject(new Error('tokenizer.json is missing'));
    return loadTokenizerJson(text);
  }
  return Promise.reject(new Error(`unknown tokenizer kind '${kind}' (expected tiktoken-gpt2 or tokenizer-json)`));
}
