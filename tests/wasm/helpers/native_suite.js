// One describe block per build variant that runs each case through the wasm module and
// compares every output with the native CLI's, under the policy in compare.js.
import { beforeAll, describe, test } from 'vitest';
import { assertClose, assertScalarClose } from './compare.js';
import { loadCase, useGoldenDir } from './goldens.js';
import { loadLab } from './lab.js';
import { VARIANTS } from './paths.js';

export function compareWithNative(title, cases) {
  const goldenDir = useGoldenDir(cases);
  describe.each(VARIANTS)(`%s wasm matches the native CLI: ${title}`, (variant) => {
    let lab;
    beforeAll(async () => {
      lab = await loadLab(variant);
    });
    test.each(cases.map((c) => [c.name, c]))('%s', (name, c) => {
      const { inputs, expected, scalars } = loadCase(goldenDir(), c);
      // Keep pristine copies: an API call must not write into its inputs.
      const before = Object.fromEntries(Object.entries(inputs).map(([k, t]) => [k, t.data.slice()]));
      const result = c.run(lab, inputs);
      for (const [key, tensor] of Object.entries(expected)) {
        assertClose(result[key], tensor, `${name}: ${key}`, c.tolerance?.(inputs, key));
      }
      for (const [key, value] of Object.entries(scalars)) assertScalarClose(result[key], value, `${name}: ${key}`);
      for (const [key, data] of Object.entries(before)) {
        if (!data.every((x, i) => Object.is(x, inputs[key].data[i])))
          throw new Error(`${name}: input ${key} was modified`);
      }
    });
  });
}
