// What the download progress line says: bytes so far of the total, the rate over the last few
// seconds, and the time left at that rate. Pure functions and a small meter, so the wording
// and the arithmetic are tested without a browser.
import { formatBytes } from '../lm/format.js';

/**
 * The download rate over a sliding window (a stall shows as a falling rate, not as the
 * average since the start).
 * @param {{ windowMs?: number, now?: () => number }} [o]
 */
export function createRateMeter({ windowMs = 3000, now = () => performance.now() } = {}) {
  const samples = []; // [t, bytes], oldest first
  return {
    /** Records that `bytes` have arrived in all so far. */
    sample(bytes) {
      const t = now();
      samples.push([t, bytes]);
      // Keep one sample at or before the window's start, so the window is always spanned.
      while (samples.length > 2 && samples[1][0] <= t - windowMs) samples.shift();
    },
    /** Forgets the samples (a new file starts). */
    reset() {
      samples.length = 0;
    },
    /** Bytes per second over the window; null before two samples a moment apart. */
    rate() {
      if (samples.length < 2) return null;
      const [t0, b0] = samples[0];
      const [t1, b1] = samples[samples.length - 1];
      const dt = (t1 - t0) / 1000;
      return dt > 0.05 ? Math.max(0, (b1 - b0) / dt) : null;
    },
  };
}

/** "25.1 MB/s" (decimal units, as the byte counts). */
export function formatRate(bytesPerSecond) {
  if (bytesPerSecond === null || !Number.isFinite(bytesPerSecond) || bytesPerSecond < 0) return '';
  return `${formatBytes(Math.round(bytesPerSecond))}/s`;
}

/** Seconds left at `rate` → "about 21 s left" / "about 3 min 05 s left" / "about 1 h 02 min left"; '' if unknown. */
export function formatEta(remainingBytes, bytesPerSecond) {
  if (!(bytesPerSecond > 0) || !Number.isFinite(remainingBytes) || remainingBytes < 0) return '';
  const s = Math.ceil(remainingBytes / bytesPerSecond);
  if (s > 99 * 3600) return 'more than 99 h left';
  if (s < 60) return `about ${s} s left`;
  if (s < 3600) return `about ${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s left`;
  return `about ${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min left`;
}

/**
 * The progress line of one file: "model.safetensors: 12.3 MB of 548.1 MB (2 %) · 25.1 MB/s ·
 * about 21 s left". Without a known size: "model.safetensors: 12.3 MB · 25.1 MB/s".
 * @param {{ file: string, received: number, expected: number | null, rate: number | null }} p
 */
export function progressLine({ file, received, expected, rate }) {
  const parts = [];
  if (expected > 0) {
    const pct = Math.min(100, Math.floor((100 * received) / expected));
    parts.push(`${file}: ${formatBytes(received)} of ${formatBytes(expected)} (${pct} %)`);
  } else {
    parts.push(`${file}: ${formatBytes(received)}`);
  }
  const r = formatRate(rate);
  if (r) parts.push(r);
  const eta = expected > 0 ? formatEta(expected - received, rate) : '';
  if (eta) parts.push(eta);
  return parts.join(' · ');
}
