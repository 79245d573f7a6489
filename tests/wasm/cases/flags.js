// Turns a JS options object into the CLI flags of the same settings, so each case states its
// settings once and the JS call and the CLI call cannot drift apart.

export const ROPE_FLAGS = {
  style: '--style',
  base: '--base',
  rotaryFraction: '--rotary-fraction',
  scaling: '--scaling',
  factor: '--factor',
  originalLength: '--original-len',
  lowFreqFactor: '--low-freq-factor',
  highFreqFactor: '--high-freq-factor',
  betaFast: '--beta-fast',
  betaSlow: '--beta-slow',
};

// table maps option names to flags; an option missing from the table is a bug in the case.
export function toFlags(options, table) {
  const args = [];
  for (const [key, value] of Object.entries(options)) {
    const flag = table[key];
    if (!flag) throw new Error(`no CLI flag for option ${key}`);
    if (value === false || value === undefined) continue;
    args.push(flag);
    if (value !== true) args.push(String(value));
  }
  return args;
}

// A short, stable description of options for test names ("dim=64 layout=concat").
export const label = (options) =>
  Object.entries(options)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
