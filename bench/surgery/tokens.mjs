#!/usr/bin/env node
// A text's token ids as the 1-D int32 .npy that `poslab surgery --tokens-file` (and `poslab lm`,
// `poslab lens`) read, through the page's tokenizer (@huggingface/tokenizers, as
// web/src/lm/tokenizer.js loads a model's tokenizer.json): no special tokens added, as the page
// encodes. docs/surgery.md, "On a model from the hub".
//
//   node bench/surgery/tokens.mjs tokenizer.json text.txt ids.npy
import { readFileSync, writeFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';

const [tokenizerPath, textPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error('usage: node bench/surgery/tokens.mjs tokenizer.json text.txt ids.npy');
  process.exit(2);
}
const tokenizer = new Tokenizer(JSON.parse(readFileSync(tokenizerPath, 'utf8')), {});
const ids = tokenizer.encode(readFileSync(textPath, 'utf8'), { add_special_tokens: false }).ids;

// .npy 1.0: magic, version, header length, then the header padded with spaces to a multiple of
// 64 bytes (its newline included), then the data.
let header = `{'descr': '<i4', 'fortran_order': False, 'shape': (${ids.length},), }`;
header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
const out = Buffer.alloc(10 + header.length + 4 * ids.length);
out.write('\x93NUMPY', 0, 'latin1');
out[6] = 1;
out[7] = 0;
out.writeUInt16LE(header.length, 8);
out.write(header, 10, 'latin1');
ids.forEach((id, i) => out.writeInt32LE(id, 10 + header.length + 4 * i));
writeFileSync(outPath, out);
console.log(`${outPath}: ${ids.length} tokens of ${textPath}`);
