// GPT-2's byte-pair tokenizer (the released 50 257-token vocabulary, shipped inside the
// js-tiktoken package: no network). Loaded with dynamic imports on first use, so only the
// GPT-2 view pays for the 0.5 MB of ranks; the promise is shared by every caller.

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
