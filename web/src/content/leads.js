// Each view's first sentence: what it shows, in words a newcomer to transformers follows
// (no symbols; a paper named only where the view tests its claim). The page puts it under the
// view's title, before anything else; tests/web/leads.test.js checks that every view of the
// registry has one.
export const VIEW_LEADS = {
  start:
    'PosLab shows how a transformer knows where each word of a text sits: its position codes, the attention they shape, longer texts, all live in your browser.',
  encodings:
    'A transformer reads all the words of a text at once, so each position gets its own list of numbers that tells the model where a word sits: this is that list, one row per position.',
  similarity:
    'How alike the position codes of two positions are: a bright cell means the model sees those two positions as close.',
  extrapolation:
    'What a model meets when a text is longer than any it was trained on, and how the usual fixes stretch its positions to reach further.',
  offset:
    'Why a model can tell how far apart two words are: moving k positions along turns every position code by the same rotation, wherever you start.',
  attention:
    'How each word decides which other words to look at, and how masks and position signals change that choice.',
  gallery:
    'The documents this lab started from (the “seeds”), each of their figures rebuilt live here, with what each gets wrong: open one to explore it.',
  'long-context':
    'How well a language model predicts the next word at each position of a long text, past the length it was trained on, with each way of stretching its positions.',
  'length-generalisation':
    'Train tiny models in your browser on short sequences, then see which way of encoding positions still works on longer ones.',
  'text-lab':
    'Train tiny byte-level language models in your browser on short windows of text, then see whose loss holds up on longer ones.',
  lm: 'Run a real language model (GPT-2, Pythia or a Llama-family model such as SmolLM2) on your own text and look inside it: its tokens, its attention and where position enters.',
  lens: 'How the attention heads of a trained model use position (some look at the word just before, some only at nearby words); “compare with” sets them beside the same model before training.',
  surgery:
    'Switch off one part of a trained model’s sense of position at a time and see how much worse it predicts the next word, testing whether fast rotations build position-tracking heads while slow ones carry meaning (Barbero et al., 2025) and whether layers can do without positions, as every fourth layer of SmolLM3 and Llama 4 does.',
  'rope-inspector':
    'Read any model’s position scheme off its config file: which layers rotate and how fast, which attend only nearby, and how far each stretching reaches.',
  benchmarks: 'How fast PosLab’s position code runs: on a data-centre GPU beside PyTorch, and in this browser.',
};
