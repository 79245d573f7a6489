// The custom attention mask in the URL: "<L>.<base64url>" where the bits are the L × L
// query × key cells in row-major order, most significant bit first, 1 = hidden.

export const MAX_MASK_TOKENS = 64;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function toBase64Url(bytes) {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let c = 0; c < chars; c++) out += ALPHABET[(n >> (18 - 6 * c)) & 63];
  }
  return out;
}

function fromBase64Url(text) {
  const bytes = new Uint8Array(Math.floor((text.length * 6) / 8));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (const ch of text) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) return null;
    acc = ((acc << 6) | v) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[o++] = (acc >> bits) & 0xff;
    }
  }
  return bytes;
}

/** hidden (L·L, nonzero = hidden) → URL token; '' when nothing is hidden. */
export function encodeMask(hidden, L) {
  if (!hidden.some((v) => v)) return '';
  const bytes = new Uint8Array(Math.ceil((L * L) / 8));
  for (let i = 0; i < L * L; i++) if (hidden[i]) bytes[i >> 3] |= 0x80 >> (i & 7);
  return `${L}.${toBase64Url(bytes)}`;
}

/**
 * URL token → hidden cells for L tokens (Uint8Array L·L). A mask drawn for another length
 * keeps its top-left overlap; cells it did not cover are visible. Malformed → null.
 */
export function decodeMask(token, L) {
  const hidden = new Uint8Array(L * L);
  if (!token) return hidden;
  const m = /^(\d{1,2})\.([A-Za-z0-9_-]+)$/.exec(token);
  if (!m) return null;
  const n = Number(m[1]);
  if (n < 1 || n > MAX_MASK_TOKENS) return null;
  const bytes = fromBase64Url(m[2]);
  if (!bytes || bytes.length < Math.ceil((n * n) / 8)) return null;
  for (let i = 0; i < Math.min(n, L); i++) {
    for (let j = 0; j < Math.min(n, L); j++) {
      const b = i * n + j;
      if (bytes[b >> 3] & (0x80 >> (b & 7))) hidden[i * L + j] = 1;
    }
  }
  return hidden;
}
