// One training run of the lab's views (Length generalisation; Train short, test long, whose
// text comes beside the config), in its own worker with its own instance of the training
// module (never the core module's worker): steps in slices, posting the losses as it goes; at
// the end the evaluation, result.json, attention maps of a few test examples and the
// checkpoint, then the pool ends the worker.
import { simdBuild } from '../core/simd-build.js';
import { createTrainLab } from '../core/train.js';

const SLICE_MS = 150; // post progress about this often

self.onmessage = async ({ data }) => {
  // The relaxed twin of the SIMD build where the engine has relaxed SIMD (core/simd-build.js).
  const { config, text, variant = simdBuild(), attentionLengths = [] } = data;
  let run;
  try {
    const t0 = performance.now();
    const lab = await createTrainLab({ variant });
    run = lab.createRun(text ? { ...config, text } : config);
    const steps = run.config.steps;
    let chunk = 1;
    while (run.stepsDone < steps) {
      const s0 = performance.now();
      const first = run.stepsDone;
      const losses = run.step(chunk);
      const spent = performance.now() - s0;
      // Aim each slice at SLICE_MS: fewer messages, still live curves.
      chunk = Math.max(1, Math.min(200, Math.round((chunk * SLICE_MS) / Math.max(spent, 1))));
      self.postMessage({
        type: 'progress',
        stepsDone: run.stepsDone,
        steps,
        losses: [...losses].map((l, i) => [first + i, l]),
      });
    }
    const trainSeconds = (performance.now() - t0) / 1000;
    const result = run.result(trainSeconds);
    const attention = attentionLengths
      .filter((L) => L >= 1 && L <= run.config.testLen)
      .map((L) => ({ length: L, ...run.attentionExample(L, 0) }));
    const checkpoint = run.checkpoint();
    const workerSeconds = (performance.now() - t0) / 1000;
    self.postMessage({ type: 'done', result, attention, checkpoint, workerSeconds }, [
      checkpoint.buffer,
      ...attention.map((a) => a.maps.buffer),
    ]);
  } catch (e) {
    self.postMessage({ type: 'error', message: e.message, field: e.field });
  } finally {
    run?.dispose();
  }
};
