// The landing's text (views/start.js): what a newcomer may have come to do, one line each,
// each the state of the view that answers it (defaults fill the rest).
export const START_INTRO = 'Pick a place to start. Every view draws at once, and its link keeps its settings to share.';

// [the view it opens, the route, its line]: the view at its defaults (tests/e2e/start.test.js opens each).
export const START_ROUTES = [
  ['encodings', 'See an encoding', 'The numbers each position gets, as a table.'],
  ['attention', 'See attention and masks', 'Which words each word attends to, and masks.'],
  ['lm', 'Look inside a real model', 'GPT-2, Pythia or SmolLM2 on your own text.'],
  ['length-generalisation', 'Train and compare methods', 'Train tiny models short, test them long.'],
  ['rope-inspector', 'Read any model’s RoPE config', 'Any config.json: what rotates, and how fast.'],
].map(([view, label, line]) => ({ label, line, state: { view } }));
