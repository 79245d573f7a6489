// GPT-2's BPE tokenizer as the GPT-2 view uses it (js-tiktoken's gpt2 ranks, loaded lazily).
import { describe, expect, it } from 'vitest';
import { visibleToken } from '../../web/src/lm/format.js';
import { loadTokenizer } from '../../web/src/lm/tokenizer.js';

describe('GPT-2 tokenizer', () => {
  it('Tokenizer.KnownGpt2Ids', async () => {
    const tok = await loadTokenizer();
    expect(tok.encode('Hello world')).toEqual([15496, 995]);
    expect(tok.encode(' the')).toEqual([262]);
    expect(tok.encode('The cat sat on the mat because it was warm')).toHaveLength(10);
    expect(tok.piece(15496)).toBe('Hello');
    expect(tok.piece(995)).toBe(' world');
    expect(tok.decode(tok.encode('naïve café, 1234!'))).toBe('naïve café, 1234!');
  });

  it('Tokenizer.IsLoadedOnceAndShared', async () => {
    const [a, b] = await Promise.all([loadTokenizer(), loadTokenizer()]);
    expect(a).toBe(b);
  });

  it('Tokenizer.EndOfTextIsTheSpecialToken', async () => {
    const tok = await loadTokenizer();
    expect(tok.encode('a<|endoftext|>b')).toEqual([64, 50256, 65]);
    expect(tok.piece(50256)).toBe('<|endoftext|>');
    expect(tok.piece(50257)).toBeNull(); // outside the vocabulary
  });

  it('Tokenizer.PartialCharactersShowTheirBytes', async () => {
    const tok = await loadTokenizer();
    const ids = tok.encode('🦊');
    expect(ids.length).toBeGreaterThan(1); // GPT-2 splits the 4 UTF-8 bytes over tokens
    const pieces = ids.map((id) => tok.piece(id));
    for (const p of pieces) expect(p).toMatch(/^(\\x[0-9a-f]{2})+$/);
    expect(pieces.join('').match(/\\x/g)).toHaveLength(4);
    expect(tok.decode(ids)).toBe('🦊');
  });

  it('Tokenizer.ChipTextShowsWhitespace', async () => {
    const tok = await loadTokenizer();
    expect(visibleToken(tok.piece(262))).toBe('␣the');
    expect(visibleToken(tok.piece(tok.encode('\n')[0]))).toBe('↵');
    expect(visibleToken('')).toBe('∅');
    expect(visibleToken(null)).toBe('∅');
  });
});
