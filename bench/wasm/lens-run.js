// The measurement of bench/wasm/lens.mjs, in Node or in a Chromium page alike: the whole
// position lens of GPT-2 small and SmolLM2-135M's shape with random weights at T tokens, on
// the threads the lab was set to; one line per model.

/** @param {object} lab the language-model API (createGpt2Lab's) @param {number} T */
export function lensLines(lab, T) {
  const models = [
    ['GPT-2 small (124M)', () => lab.gpt2Random({ preset: 'small', seed: 0 })],
    ['SmolLM2-135M shape', () => lab.llamaRandom({ preset: 'smollm2-135m', seed: 0 })],
  ];
  const seconds = (t0) => ((performance.now() - t0) / 1000).toFixed(1);
  const lines = [];
  for (const [label, create] of models) {
    const model = create();
    try {
      const vocab = model.config.vocab_size;
      const ids = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % vocab);
      model.forward(ids.slice(0, 8)); // tier up to the optimising compiler
      let t0 = performance.now();
      const report = model.lens(ids);
      const whole = seconds(t0);
      t0 = performance.now();
      model.forward(ids, { trace: true, topK: 1 });
      const forward = seconds(t0);
      const counts = Object.entries(report.role_counts)
        .map(([role, n]) => `${role} ${n}`)
        .join(', ');
      lines.push(`${label}, T = ${T}: whole lens ${whole} s (one traced forward: ${forward} s); ${counts}`);
    } finally {
      model.delete();
    }
  }
  return lines;
}
