// The bad values of each kind of argument, shared by the JS API's and the raw bindings' bad-input
// tables: one valid call per function names its arguments, and every argument is then replaced
// in turn by each bad value of its kind. An argument's kind comes from its name (KINDS).

// Each kind's bad values: [label, value]. Sizes are capped at maxElements, 2^40 is far past it.
const NON_FINITE = [
  ['NaN', NaN],
  ['Infinity', Infinity],
  ['-Infinity', -Infinity],
];
const NOT_A_NUMBER = [
  ["the string '4'", '4'],
  ['null', null],
  ['an object', {}],
  ['an array [4]', [4]],
  ['a boolean', true],
];
const FRACTIONAL = [['fractional', 3.5]];
const NEGATIVE = [['negative', -1]];

export const BAD_VALUES = {
  size: [...NON_FINITE, ...NEGATIVE, ...FRACTIONAL, ...NOT_A_NUMBER, ['over the cap (2^40)', 2 ** 40]],
  int: [...NON_FINITE, ...NEGATIVE, ...FRACTIONAL, ...NOT_A_NUMBER],
  signed: [...NON_FINITE, ...FRACTIONAL, ...NOT_A_NUMBER],
  num: [...NON_FINITE, ...NOT_A_NUMBER],
  str: [
    ['a number', 5],
    ['null', null],
    ['an object', {}],
    ['an array', ['x']],
    ['a boolean', true],
  ],
  bool: [
    ['the number 1', 1],
    ["the string 'true'", 'true'],
    ['null', null],
    ['an object', {}],
  ],
  opts: [
    ['null', null],
    ['a number', 4],
    ['a string', 'x'],
    ['an array', []],
  ],
  config: [
    ['null', null],
    ['a number', 4],
    ['an array', []],
    ['a boolean', true],
  ],
  bytes: [
    ['null', null],
    ['a string', 'x'],
    ['a number[]', [1, 2]],
    ['a Float32Array', new Float32Array(8)],
  ],
  tokens: [
    ['null', null],
    ['a string', '1'],
    ['an object', {}],
    ['a Float32Array', Float32Array.of(1)],
  ],
  tensor: [
    ['null', null],
    ['a number', 4],
    ['a string', 'x'],
    ['an empty object', {}],
  ],
};

// Argument and option names → kind; a table names the kind itself where a name is ambiguous
// (attention's k is a tensor, offsetMatrix's k an integer). A name missing here is a table bug.
const KINDS = {
  size: [
    'length',
    'dim',
    'queryLength',
    'keyLength',
    'maxDistance',
    'heads',
    'headDim',
    'numBuckets',
    'queries',
    'keys',
  ],
  int: ['offset', 'seed', 't5Seed', 'totalLength', 'fileSize', 'topK', 'threads'],
  signed: ['k'],
  num: ['base', 'scaleBase', 'keepFraction', 'r1', 'r2', 'std', 'eps', 'scale', 'factor'],
  str: ['layout', 'metric', 'method', 'style', 'scaling', 'mask', 'position', 'name', 'preset', 'dtype'],
  bool: ['bidirectional', 'returnWeights', 'trace', 'key'],
  tensor: ['x', 'q', 'v', 'gamma', 'beta'],
  opts: ['options', 'rope'],
  config: ['config'],
  bytes: ['first8', 'header', 'chunk'],
  tokens: ['tokens'],
};

export function kindOf(name, kind) {
  if (kind) return kind;
  for (const [candidate, names] of Object.entries(KINDS)) if (names.includes(name)) return candidate;
  throw new Error(`bad_values.js: no kind for argument '${name}'`);
}

// How a message may name an argument: queryLength also as 'query length' (the core's words).
export const named = (name) => new RegExp(`\\b${name.replace(/([a-z])([A-Z])/g, '$1[ _]?$2')}\\b`, 'i');

const withBad = (tensor, value) => {
  const data = Float32Array.from(tensor.data);
  data[1] = value;
  return { data, shape: tensor.shape };
};

/**
 * The bad-argument cases of one API surface. calls: { fn: () => [[name, value, kind?], ...] },
 * one valid call per function; invoke(target, fn, args) makes the call. Each case is
 * [what, (target) => result, pattern, field]: one argument (or one field of an options
 * argument) replaced by a bad value of its kind, an unknown option, a non-finite tensor value,
 * or a zero-length axis next to one over the cap. `field` is the name the error must carry
 * (PosLabError.field, the raw { field }): the argument or option that was broken, the unknown
 * key, or the huge size; undefined for a whole options argument of the wrong type.
 */
export function badArgumentCases(calls, invoke) {
  const cases = [];
  for (const [fn, make] of Object.entries(calls)) {
    const call = (edit) => (target) => {
      const args = make().map(([, value]) => value);
      edit(args);
      return invoke(target, fn, args);
    };
    const add = (what, edit, pattern, field) => cases.push([`${fn} ${what}`, call(edit), pattern, field]);
    make().forEach(([name, value, explicit], i) => {
      const kind = kindOf(name, explicit);
      const pattern = kind === 'opts' ? /options must be an object/ : named(name);
      const field = kind === 'opts' ? undefined : name;
      for (const [label, bad] of BAD_VALUES[kind]) add(`${name} ${label}`, (a) => (a[i] = bad), pattern, field);
      if (kind === 'tensor') addTensorCases(add, name, i, value);
      if (kind !== 'opts') return;
      add(
        `${name} with an unknown option`,
        (a) => (a[i] = { ...a[i], bogusOption: 1 }),
        /unknown option 'bogusOption'/,
        'bogusOption',
      );
      for (const [key, field] of Object.entries(value)) {
        const k = kindOf(key);
        for (const [label, bad] of BAD_VALUES[k]) {
          add(`${name}.${key} ${label}`, (a) => (a[i] = { ...a[i], [key]: bad }), named(key), key);
        }
        if (k === 'tensor') addTensorCases(add, `${name}.${key}`, i, field, key);
      }
      const pair = zeroAndHuge(Object.keys(value));
      if (pair) {
        const [zero, huge] = pair;
        const edit = (a) => (a[i] = { ...a[i], [zero]: 0, [huge]: 2 ** 40 });
        add(`${name}.${zero} 0 next to ${huge} 2^40`, edit, [named(huge), /too large|limit/], huge);
      }
    });
    const names = make().map(([name, , explicit]) => (kindOf(name, explicit) === 'size' ? name : null));
    const pair = zeroAndHuge(names.filter(Boolean));
    if (pair) {
      const [zero, huge] = pair.map((name) => names.indexOf(name));
      const edit = (a) => ((a[zero] = 0), (a[huge] = 2 ** 40));
      add(`${pair[0]} 0 next to ${pair[1]} 2^40`, edit, [named(pair[1]), /too large|limit/], pair[1]);
    }
  }
  return cases;
}

// A length that may be 0 and another size to make huge, among `names`, or null.
function zeroAndHuge(names) {
  const zero = names.find((name) => ['length', 'queryLength', 'keyLength'].includes(name));
  const huge = names.find((name) => name !== zero && kindOf(name) === 'size');
  return zero && huge ? [zero, huge] : null;
}

// A tensor argument (position i, or field `key` of the options at i) with a NaN, +∞ or −∞
// element, and with the shape (0, 2^40, 4): no elements, yet one axis far over the cap.
function addTensorCases(add, what, i, tensor, key) {
  const set = (a, t) => (key === undefined ? (a[i] = t) : (a[i] = { ...a[i], [key]: t }));
  const name = key ?? what;
  for (const [label, bad] of [
    ['NaN', NaN],
    ['+Infinity', Infinity],
    ['-Infinity', -Infinity],
  ]) {
    const pattern = [named(name), /NaN|inf|finite/i];
    add(`${what} with a ${label} element`, (a) => set(a, withBad(tensor, bad)), pattern, name);
  }
  const empty = { data: new Float32Array(0), shape: [0, 2 ** 40, 4] };
  add(`${what} of shape (0, 2^40, 4)`, (a) => set(a, empty), [named(name), /too large|limit/], name);
}
