// Number formatting for readouts and tick labels. Readouts show the stored float32 value
// exactly: the shortest decimal that reads back to the same float32.

/** Shortest decimal string that round-trips through float32 (NaN, ±∞ spelled out). */
export function formatExact(v) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+∞';
  if (v === -Infinity) return '−∞';
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  const f = Math.fround(v);
  for (let p = 1; p <= 9; p++) {
    const s = f.toPrecision(p);
    if (Math.fround(Number(s)) === f) return tidy(s);
  }
  return String(f);
}

/** Compact label for ticks and colour bars (4 significant digits). */
export function formatShort(v) {
  if (!Number.isFinite(v)) return formatExact(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-3) return tidy(v.toExponential(2));
  return tidy(String(Number(v.toPrecision(4))));
}

// '1.500e+3' → '1.5e3', '0.50' → '0.5'; leaves plain integers alone.
function tidy(s) {
  let [m, e] = s.split('e');
  if (m.includes('.')) m = m.replace(/0+$/, '').replace(/\.$/, '');
  if (e === undefined) return m;
  return `${m}e${Number(e)}`;
}
