// The training module (poslab-train) in Node against the native CLI (`poslab train`), both
// builds, every position method: the same seed gives the same batch (byte-identical .npy), the
// same loss and gradients, and after one step the same weights.
//
// Tolerance policy: loss within 1e-5 relative and each gradient within 1e-5 of its tensor's
// largest |entry| (float32 products: native may fuse multiply-adds, wasm cannot). After one
// AdamW step each weight moves by lr·g/(|g| + ε), about lr·sign(g): where |g| is within float
// noise of 0 the two builds may move a weight by different fractions of lr, so a weight may
// differ by up to 2·lr, and all but 1% of them by at most 1e-5·max|w| + 1e-3·lr.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { readSafetensors } from '../helpers/read-safetensors.js';
import { requireCli, runCli } from './helpers/cli.js';
import { modulePath, repoRoot, scratchFiles, VARIANTS } from './helpers/paths.js';

const file = scratchFiles('poslab-train-wasm-');

const SMALL = { trainLen: 5, layers: 2, width: 16, heads: 2, batch: 6, seed: 4, evalExamples: 8 };
const CASES = [
  { position: 'none' },
  { position: 'learned' },
  { position: 'sinusoidal', embedScale: 8 },
  { position: 'rope' },
  { position: 'alibi' },
  { position: 't5' },
  { position: 'rope', randomizedPositions: 64 },
  { position: 't5', task: 'addition' },
  { position: 'fire' },
  { position: 'fire', randomizedPositions: 2000 },
  // Issue 50: sinks on any method, NoPE layers and their temperature, CoPE, FoX.
  { position: 'alibi', sinks: true },
  { position: 'rope', nopeEvery: 2, attnFloorScale: 4, attnScale: 0.5, randomizedPositions: 64 },
  { position: 'cope', nposMax: 4 },
  { position: 'fox', sinks: true },
  { position: 'fox', foxDecayMax: 0 },
  // Issue 51: Abacus's digit places, offset in training.
  { position: 'abacus', task: 'addition', abacusMaxOffset: 7 },
  // Operands zero-padded to N digits (Lee et al. 2023's fixed width).
  { position: 'learned', task: 'addition', padOperands: true },
  // Index hints (Zhou et al. 2024), with FIRE on randomised positions as their recipe.
  { position: 'fire', task: 'addition', indexHints: 40, randomizedPositions: 256 },
];

const flag = (key) => '--' + key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
// The CLI's spelling of a configuration: a true boolean is a flag alone (--sinks), the
// temperature's two numbers one option (--attn-temperature FLOOR,SCALE).
const cliArgs = ({ attnFloorScale, attnScale, ...config }) => [
  ...Object.entries({ task: 'copy', ...config }).flatMap(([k, v]) => (v === true ? [flag(k)] : [flag(k), String(v)])),
  ...(attnFloorScale ? ['--attn-temperature', `${attnFloorScale},${attnScale}`] : []),
];

async function loadLab(variant) {
  const { createTrainLab } = await import(path.join(repoRoot, 'web/src/core/poslab.js'));
  const wasm = modulePath(variant, 'poslab-train');
  return createTrainLab({ variant, wasmBinary: fs.readFileSync(wasm) });
}

let count = 0;
async function nativeDump(config) {
  const out = file(`dump${count++}`);
  const { code, stderr } = await runCli(['train', ...cliArgs(config), '--dump', out]);
  if (code !== 0) throw new Error(stderr);
  return Object.fromEntries(fs.readdirSync(out).map((f) => [f, fs.readFileSync(path.join(out, f))]));
}

async function nativeAfterOneStep(config) {
  const ckpt = file(`ckpt${count++}.safetensors`);
  const args = ['train', ...cliArgs(config), '-q', '-o', `${ckpt}.json`, '--checkpoint', ckpt];
  const { code, stderr } = await runCli(args);
  if (code !== 0) throw new Error(stderr);
  return readSafetensors(fs.readFileSync(ckpt)).tensors;
}

function expectGradientsClose(got, want, label) {
  for (const [name, w] of Object.entries(want)) {
    const g = got[name];
    expect(g, `${label}: ${name}`).toBeDefined();
    const peak = w.data.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    let worst = 0;
    for (let i = 0; i < w.data.length; i++) worst = Math.max(worst, Math.abs(g.data[i] - w.data[i]));
    expect(worst, `${label}: ${name}`).toBeLessThanOrEqual(1e-5 * peak + 1e-12);
  }
}

describe.each(VARIANTS)('training module, %s build', (variant) => {
  requireCli();
  test.each(CASES)('one step matches the native CLI: %o', async (extra) => {
    const lab = await loadLab(variant);
    const config = { ...SMALL, ...extra, steps: 1, lr: 1e-3 };
    const run = lab.createRun(config);
    const dump = run.dump();
    const native = await nativeDump({ ...config, steps: 0 });
    for (const f of ['tokens.npy', 'targets.npy', 'positions.npy', 'loss_mask.npy']) {
      expect(Buffer.from(dump[f]).equals(native[f]), `${f} byte-identical`).toBe(true);
    }
    expect(JSON.parse(new TextDecoder().decode(dump['config.json']))).toEqual(JSON.parse(native['config.json']));
    const loss = JSON.parse(new TextDecoder().decode(dump['loss.json'])).loss;
    const nativeLoss = JSON.parse(native['loss.json']).loss;
    expect(Math.abs(loss - nativeLoss)).toBeLessThanOrEqual(1e-5 * Math.abs(nativeLoss));
    expectGradientsClose(
      readSafetensors(dump['grads.safetensors']).tensors,
      readSafetensors(native['grads.safetensors']).tensors,
      'gradients',
    );

    const losses = run.step(5); // the budget is one step
    expect(losses.length).toBe(1);
    expect(Math.abs(losses[0] - nativeLoss)).toBeLessThanOrEqual(1e-5 * Math.abs(nativeLoss));
    expect(run.stepsDone).toBe(1);
    const after = readSafetensors(run.checkpoint()).tensors;
    const want = await nativeAfterOneStep(config);
    for (const [name, w] of Object.entries(want)) {
      const peak = w.data.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      let loose = 0;
      for (let i = 0; i < w.data.length; i++) {
        const diff = Math.abs(after[name].data[i] - w.data[i]);
        expect(diff, `${name}[${i}]`).toBeLessThanOrEqual(2 * config.lr + 1e-5 * peak);
        if (diff > 1e-5 * peak + 1e-3 * config.lr) loose++;
      }
      expect(loose, `${name}: weights past the tight bound`).toBeLessThanOrEqual(Math.ceil(0.01 * w.data.length));
    }
    run.dispose();
  });
});

describe('training API', () => {
  test('defaults and names come from the core', async () => {
    const lab = await loadLab('simd');
    expect(lab.names.positions).toEqual([
      'learned',
      'sinusoidal',
      'rope',
      'p-rope',
      'xpos',
      'alibi',
      't5',
      'kerple',
      'fire',
      'cope',
      'fox',
      'abacus',
      'none',
    ]);
    expect(lab.names.tasks).toEqual(['copy', 'reverse', 'sort', 'addition', 'text']);
    expect(lab.defaults).toMatchObject({ layers: 2, width: 64, heads: 4, batch: 32, trainLen: 8 });
    // Batch, like steps, is the task's when a configuration leaves it out: text's is 8.
    expect(lab.defaults.batchByTask).toEqual({ copy: 32, reverse: 32, sort: 32, addition: 32, text: 8 });
    const text = lab.createRun({ task: 'text', text: new Uint8Array(4000).fill(97), trainLen: 8, width: 16, heads: 2 });
    expect(text.config.batch).toBe(8);
    text.dispose();
    const copy = lab.createRun({ ...SMALL, batch: 5 });
    expect(copy.config.batch).toBe(5);
    copy.dispose();
  });

  test('a run trains, evaluates, reports and exports', async () => {
    const lab = await loadLab('simd');
    const run = lab.createRun({ ...SMALL, steps: 30, testLen: 7 });
    expect(run.config.testLen).toBe(7);
    expect(run.vocabulary).toEqual({ symbols: 10, bos: 10, sep: 11, eos: 12, pad: 13, size: 14 });
    const losses = run.step(30);
    expect(losses.length).toBe(30);
    expect(losses[29]).toBeLessThan(losses[0]);
    expect(run.lossCurve.length).toBe(30);
    expect(run.tokensSeen).toBeGreaterThan(0);
    const ev = run.evaluate();
    expect(Object.keys(ev.accuracyByLength)).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(ev.tokenAccuracyByPosition['7'].length).toBe(8);
    const ex = run.attentionExample(7, 2);
    expect(ex.shape).toEqual([2, 2, 17, 17]);
    expect(ex.tokens.length).toBe(17);
    expect(ex.answerStart).toBe(9);
    const result = run.result(1.5);
    expect(result.wall_time_s).toBe(1.5);
    expect(result.accuracy_by_length['7']).toBe(ev.accuracyByLength['7']);
    const ckpt = readSafetensors(run.checkpoint());
    expect(JSON.parse(ckpt.metadata.config).position).toBe('none');
    run.dispose();
    expect(() => run.step()).toThrow(/disposed/);
  });

  // Train short, test long: the same byte-level run as `poslab train --task text` on the same
  // file, its held-out loss by context within 1e-4 relative after two steps (float rounding).
  test('the text task matches the CLI, by context and under each RoPE scaling', async () => {
    const lab = await loadLab('simd');
    let text = '';
    for (let i = 0; text.length < 3000; i++) text += `line ${i % 37} of the text, é\n`;
    const bytes = new TextEncoder().encode(text);
    const textFile = file('text.txt');
    fs.writeFileSync(textFile, bytes);
    const config = {
      task: 'text',
      position: 'rope',
      trainLen: 8,
      testLen: 32,
      layers: 1,
      width: 16,
      heads: 2,
      batch: 4,
      steps: 2,
    };
    const run = lab.createRun({ ...config, text: bytes });
    expect(run.vocabulary.size).toBe(256);
    run.step(2);
    const ev = run.evaluate();
    expect(ev.lossByContext.map((r) => r.context)).toEqual([8, 16, 32]);
    const result = run.result(0);
    run.dispose();
    const out = file('text.json');
    const { code, stderr } = await runCli(['train', ...cliArgs(config), '--text-file', textFile, '-q', '-o', out]);
    expect(code, stderr).toBe(0);
    const native = JSON.parse(fs.readFileSync(out, 'utf8'));
    const close = (a, b) => expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-4 * Math.abs(b));
    native.perplexity_by_context.forEach((row, k) => {
      close(result.perplexity_by_context[k].loss, row.loss);
      close(ev.lossByContext[k].loss, row.loss);
    });
    for (const scaling of ['linear', 'ntk', 'dynamic', 'yarn']) {
      native.perplexity_by_context_with_scaling[scaling].forEach((row, k) =>
        close(result.perplexity_by_context_with_scaling[scaling][k].loss, row.loss),
      );
    }
  });

  test('position coupling is an option of the JS API too', async () => {
    const lab = await loadLab('simd');
    const run = lab.createRun({ ...SMALL, task: 'addition', position: 'rope', coupledPositions: 32, steps: 1 });
    expect(run.config.coupledPositions).toBe(32);
    run.dispose();
    expect(run.config.padOperands).toBe(false);
    expect(run.config.indexHints).toBe(0);
  });

  test('bad configurations throw PosLabError naming the option', async () => {
    const lab = await loadLab('simd');
    const { PosLabError } = await import(path.join(repoRoot, 'web/src/core/errors.js'));
    const cases = [
      [{ heads: 3 }, 'heads'],
      [{ position: 'rope', width: 12, heads: 4 }, 'heads'],
      [{ position: 'spiral' }, 'position'],
      [{ task: 'juggle' }, 'task'],
      [{ lr: NaN }, 'lr'],
      [{ randomizedPositions: 64 }, 'randomizedPositions'],
      [{ width: 0 }, 'width'],
      [{ stepz: 3 }, 'stepz'],
      [{ task: 'text' }, 'text'],
      [{ task: 'text', text: new Uint8Array(100), trainLen: 8, testLen: 32 }, 'text'],
      [{ text: new Uint8Array(1000) }, 'text'],
      [{ task: 'text', text: 'words', trainLen: 8 }, 'text'],
    ];
    for (const [config, field] of cases) {
      let error;
      try {
        lab.createRun(config);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(config)).toBeInstanceOf(PosLabError);
      expect(error.field, JSON.stringify(config)).toBe(field);
    }
    // Still usable after refusals.
    lab.createRun({ ...SMALL, steps: 1 }).dispose();
  });
});
