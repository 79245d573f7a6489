// The measurement of bench/surgery/speed.mjs, in a Chromium page or in Node alike: position
// surgery sweeps through the JS API, each timed whole (its lens included where it has one) with
// the forward-equivalents its report counts; one line per sweep.

const seconds = (t0) => (performance.now() - t0) / 1000;

// One line: the sweep's time against its target, its passes, and the time per forward-equivalent.
function line(label, target, t, report) {
  const verdict = t <= target ? 'within' : 'OVER';
  const per = (t / report.forward_equivalents).toFixed(2);
  return (
    `${label}: ${t.toFixed(1)} s (${verdict} the ${target} s target); ${report.interventions.length} interventions, ` +
    `${report.forwards} passes over ${report.windows} window(s) of ${report.window} tokens, ` +
    `${report.forward_equivalents.toFixed(2)} forward-equivalents per window` +
    `${report.prefix_reused ? ', prefix reused' : ''}; ${per} s per forward-equivalent`
  );
}

/**
 * A band sweep (16 groups) and a layer sweep of SmolLM2-135M's shape with random weights at
 * `T` tokens, on the threads the language-model API `lm` was set to.
 * @param {object} lm createGpt2Lab's API @param {number} T
 */
export function smolLines(lm, T) {
  const model = lm.llamaRandom({ preset: 'smollm2-135m', seed: 0 });
  try {
    const vocab = model.config.vocab_size;
    const ids = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % vocab);
    model.forward(ids.slice(0, 8)); // tier up to the optimising compiler
    let t0 = performance.now();
    model.forward(ids, { logits: false, lossByPosition: true, topK: 1 });
    const forward = seconds(t0);
    const lines = [`SmolLM2-135M shape, T = ${T}: one forward pass (losses) ${forward.toFixed(2)} s`];
    // onProgress too: on the threaded build it is called back on the calling thread.
    let calls = 0;
    t0 = performance.now();
    const bands = model.surgery(ids, { sweep: 'bands', onProgress: () => calls++ });
    lines.push(line(`  band sweep (${bands.group} pairs a group, ${calls} progress calls)`, 30, seconds(t0), bands));
    t0 = performance.now();
    const layers = model.surgery(ids, { sweep: 'layers' });
    lines.push(line('  layer sweep', 60, seconds(t0), layers));
    return lines;
  } finally {
    model.delete();
  }
}

/**
 * The full head sweep (every head NoPE, then ablated, with the lens's roles) of the lab's
 * shipped text model on the training module: `bytes` (the held-out tenth of the lab's sample),
 * at most `len` of them in windows of `window`, as the Surgery view's defaults run it.
 * @param {object} train createTrainLab's API @param {Uint8Array} checkpoint
 */
export function labLines(train, checkpoint, bytes, len, window) {
  const text = bytes.subarray(0, Math.min(bytes.length, len));
  train.textSurgery(checkpoint, text.subarray(0, 16), { sweep: 'single', surgery: { nopeLayers: [0] } }); // tier up
  const t0 = performance.now();
  const heads = train.textSurgery(checkpoint, text, { sweep: 'heads', window });
  return [line(`lab text model (shipped), heads sweep on ${text.length} bytes`, 10, seconds(t0), heads)];
}
