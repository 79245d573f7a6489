// The RoPE inspector in the language-model module against `poslab rope-config` on every
// config the page bundles (web/src/content/rope-configs): the same report, numbers within
// 1e-12 relative (libm's pow and log may differ in the last bit between the builds), keys in
// camelCase. Bad configs come back as a PosLabError on the field "config".
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { ROPE_CONFIGS } from '../../web/src/state/rope-configs.js';
import { requireCli, runCli } from './helpers/cli.js';
import { loadLmLab } from './helpers/lm.js';
import { repoRoot, scratchFiles, VARIANTS } from './helpers/paths.js';

const DIR = path.join(repoRoot, 'web/src/content/rope-configs');
const file = scratchFiles('poslab-rope-config-');
const camel = (key) => key.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

// `want` (the CLI's snake_case JSON) and `got` (the API's camelCase object) agree.
function expectSameReport(got, want, where) {
  if (Array.isArray(want)) {
    expect(got, where).toHaveLength(want.length);
    want.forEach((w, i) => expectSameReport(got[i], w, `${where}[${i}]`));
  } else if (want !== null && typeof want === 'object') {
    expect(Object.keys(got).sort(), where).toEqual(Object.keys(want).map(camel).sort());
    for (const [k, w] of Object.entries(want)) expectSameReport(got[camel(k)], w, `${where}.${k}`);
  } else if (typeof want === 'number') {
    expect(Math.abs(got - want), where).toBeLessThanOrEqual(1e-12 * Math.abs(want));
  } else {
    expect(got, where).toBe(want);
  }
}

test('the bundled list names every file in content/rope-configs, and only those', () => {
  const files = fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''));
  expect(ROPE_CONFIGS.map(([name]) => name).sort()).toEqual(files.sort());
});

describe.each(VARIANTS)('%s wasm', (variant) => {
  let lab;
  beforeAll(async () => {
    requireCli();
    lab = await loadLmLab(variant);
  });

  test.each(ROPE_CONFIGS.map(([name]) => name))('%s: the same report as poslab rope-config', async (name) => {
    const config = path.join(DIR, `${name}.json`);
    const out = file(`${variant}-${name}.json`);
    const { code, stderr } = await runCli(['rope-config', '--config', config, '-o', out]);
    expect(code, stderr).toBe(0);
    const want = JSON.parse(fs.readFileSync(out, 'utf8'));
    const got = lab.ropeConfig(fs.readFileSync(config, 'utf8'), config);
    expectSameReport(got, want, name);
    expect(got.schemes.length).toBeGreaterThan(0);
  });

  test('the M-RoPE sample prompt: the same ids as poslab rope-config --mrope-sample', async () => {
    const config = path.join(DIR, 'qwen2-vl-7b.json');
    const out = file(`${variant}-qwen2-vl-sample.json`);
    const { code, stderr } = await runCli(['rope-config', '--config', config, '-o', out, '--mrope-sample', '5,4,12,1']);
    expect(code, stderr).toBe(0);
    const want = JSON.parse(fs.readFileSync(out, 'utf8'));
    const sample = { textBefore: 5, imageH: 4, imageW: 12, textAfter: 1 };
    const got = lab.ropeConfig(fs.readFileSync(config, 'utf8'), config, { mropeSample: sample });
    expectSameReport(got, want, 'qwen2-vl-7b sample');
    expect(got.mrope.sample.tokens).toBe('TTTTT' + 'I'.repeat(12) + 'T');
    expect(got.mrope.axes).toBe('t'.repeat(16) + 'h'.repeat(24) + 'w'.repeat(24));
    const refusals = [
      [{ imageH: 1 }, 'mropeSample', /under one 2 x 2 merged token/],
      [{ textAfter: -1 }, 'mropeSample', /text before and after the image/],
      [{ imageW: 1.5 }, 'imageW', /imageW/],
      [{ rows: 2 }, 'rows', /unknown option 'rows'/],
    ];
    for (const [mropeSample, field, message] of refusals) {
      let error;
      try {
        lab.ropeConfig(fs.readFileSync(config, 'utf8'), config, { mropeSample });
      } catch (e) {
        error = e;
      }
      expect(error?.field, JSON.stringify(mropeSample)).toBe(field);
      expect(error.message).toMatch(message);
    }
  });

  test('a bad config is refused on the field "config", naming what is wrong', () => {
    const cases = [
      ['{', /not valid JSON/],
      ['{"hidden_size": 8}', /num_attention_heads/],
      [
        '{"hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1, "max_position_embeddings": 8, "rope_scaling": {"rope_type": "su", "short_factor": [1], "long_factor": [1, 1]}}',
        /short_factor has 1 entries; it needs one per rotary pair, 2/,
      ],
    ];
    for (const [text, message] of cases) {
      let error;
      try {
        lab.ropeConfig(text);
      } catch (e) {
        error = e;
      }
      expect(error?.name, text).toBe('PosLabError');
      expect(error.field).toBe('config');
      expect(error.message).toMatch(message);
    }
    expect(() => lab.ropeConfig(42)).toThrow(/config/);
  });
});
