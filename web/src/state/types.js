// Value types of the URL state. Each type parses the raw text of one hash parameter into a
// value (or a reason it cannot), formats a value back, and checks values set from controls.
// Parsing never throws: a hostile hash must only ever fall back to defaults.

const MAX_RAW = 2000; // longer raw values are refused before any parsing work

/** Short, printable rendering of hostile input for messages (shown through textContent). */
export function preview(raw, limit = 40) {
  const s = String(raw).replace(/[\u0000-\u001f\u007f]/g, '?');
  return s.length > limit ? `${s.slice(0, limit)}…` : s;
}

/** @typedef {{ ok: true, value: any } | { ok: false, reason: string }} Parsed */

const ok = (value) => ({ ok: true, value });
const bad = (reason) => ({ ok: false, reason });

// Plain decimal or exponent notation only: Number('0x10'), Number(' 1 ') and Number('')
// accept things no person would type into a link.
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function parseNumber(raw) {
  if (typeof raw !== 'string' || raw.length > 40 || !NUMBER_RE.test(raw)) return NaN;
  // '-0' reads as 0: a value that is written back as '0' must be read back as itself.
  return Number(raw) + 0;
}

// A number type in [min, max] whose values pass `valid` (described by `what` when not).
function ranged(kind, what, valid, def, min, max) {
  const check = (v) => {
    if (typeof v !== 'number' || !valid(v)) return bad(what);
    if (v < min || v > max) return bad(`must be between ${min} and ${max}`);
    return ok(v);
  };
  return { kind, def, min, max, check, parse: (raw) => check(parseNumber(raw)), format: (v) => String(v) };
}

/** An integer in [min, max]. */
export const int = (def, min, max) => ranged('int', 'not a whole number', Number.isInteger, def, min, max);

/** A finite number in [min, max]. */
export const num = (def, min, max) => ranged('num', 'not a finite number', Number.isFinite, def, min, max);

/** One of a fixed list of names; `aliases` (old name → name) are read, never written. */
export function oneOf(values, def, aliases = {}) {
  // A long list is cut, so a refusal stays one readable line.
  const listed = values.length > 8 ? `${values.slice(0, 6).join(', ')}, … (${values.length} names)` : values.join(', ');
  const check = (v) => (values.includes(v) ? ok(v) : bad(`must be one of ${listed}`));
  const parse = (raw) => check(Object.hasOwn(aliases, raw) ? aliases[raw] : raw);
  return { kind: 'enum', def, values, check, parse, format: (v) => v };
}

export function bool(def) {
  const check = (v) => (typeof v === 'boolean' ? ok(v) : bad('must be true or false'));
  return {
    kind: 'bool',
    def,
    check,
    parse: (raw) =>
      raw === '1' || raw === 'true' ? ok(true) : raw === '0' || raw === 'false' ? ok(false) : bad('must be 0 or 1'),
    format: (v) => (v ? '1' : '0'),
  };
}

/** Free text up to maxLength characters (shown only through textContent / input.value). */
export function text(def, maxLength) {
  const check = (v) => {
    if (typeof v !== 'string') return bad('not text');
    if (v.length > maxLength) return bad(`longer than ${maxLength} characters`);
    // Control characters have no business in a sentence and make links unreadable.
    if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(v)) return bad('contains control characters');
    return ok(v);
  };
  return { kind: 'text', def, maxLength, check, parse: check, format: (v) => v };
}

/** A comma-separated list of integers in [min, max], at most maxCount of them. */
export function intList(def, min, max, maxCount) {
  const check = (v) => {
    if (!Array.isArray(v)) return bad('not a list');
    if (v.length > maxCount) return bad(`more than ${maxCount} entries`);
    for (const x of v) {
      if (!Number.isInteger(x) || x < min || x > max) return bad(`entries must be whole numbers from ${min} to ${max}`);
    }
    return ok(v);
  };
  return {
    kind: 'list',
    def,
    min,
    max,
    maxCount,
    check,
    parse: (raw) => {
      if (typeof raw !== 'string' || raw.length > MAX_RAW) return bad('too long');
      const parts = raw.trim() === '' ? [] : raw.split(',');
      return check(parts.map((s) => parseNumber(s.trim())));
    },
    format: (v) => v.join(','),
  };
}

/** A non-empty set of names from `values`, comma-separated, each at most once (kept in `values`' order). */
export function nameList(values, def) {
  const check = (v) => {
    if (!Array.isArray(v) || v.length === 0) return bad('not a non-empty list');
    for (const x of v) if (!values.includes(x)) return bad(`entries must be among ${values.join(', ')}`);
    if (new Set(v).size !== v.length) return bad('an entry appears twice');
    return ok(v);
  };
  return {
    kind: 'names',
    def,
    values,
    check,
    parse: (raw) => (typeof raw !== 'string' || raw.length > MAX_RAW ? bad('too long') : check(raw.split(','))),
    format: (v) => v.join(','),
  };
}

/** Opaque token text matched against a pattern (e.g. the custom mask's bit string). */
export function token(def, pattern, maxLength) {
  const check = (v) => {
    if (typeof v !== 'string' || v.length > maxLength || !pattern.test(v)) return bad('malformed');
    return ok(v);
  };
  return { kind: 'token', def, maxLength, check, parse: check, format: (v) => v };
}

export { MAX_RAW };
