// The structure diagram: every step of the model's forward pass with the shape of its tensor,
// in symbols and in the numbers of the model on screen and the current T (its architecture's
// `structure`: lm/shapes.js, lm/rope-steps.js), and, for GPT-2, what seed 003 gets wrong.
import { shapeText } from '../lm/shapes.js';
import { SEED_WORDS, setSeedProse } from '../ui/seed-link.js';
import { el, plainFigure } from './kit.js';

// Seed 003 (a chat answer with PyTorch code) against the released model.
const SEED_003 = [
  'It calls the stack a “Transformer Encoder”: GPT-2 is decoder-only; every block masks the future (causal).',
  'Its blocks normalise after the residual add (post-LN, norm(attention + x)); GPT-2 normalises first (pre-LN: x + attn(ln_1(x))) and adds a final ln_f.',
  'Its attention shares one head_dim×head_dim projection across heads; GPT-2 projects the whole width with one fused c_attn (E, 3E) and splits q, k, v into H heads.',
  'It scales scores by 1/√embed_size; GPT-2 by 1/√d with d = E/H.',
  'Its MLP uses ReLU; GPT-2 uses GELU (tanh approximation).',
  'Its output layer fc_out is a separate matrix with a bias; GPT-2 ties the logits to the token embedding: logits = x·wteᵀ.',
  'Its mask prose has 0 and 1 the wrong way round: a hidden key gets −∞ before the softmax.',
  'Its hand-written LayerNorm divides by std + eps with the unbiased std (x.std()); GPT-2 divides by √(var + eps) with the biased variance.',
];

/** @param {HTMLElement} parent */
export function createDiagram(parent) {
  const { fig, title } = plainFigure('lm-diagram');
  const list = el('ol', 'lm-steps');
  const legend = el('p', 'fig-note');
  const seed = el('details', 'lm-seed');
  const summary = el('summary', undefined, 'Where seed 003’s GPT-2 is wrong (it is drawn correctly here)');
  const wrong = el('ul');
  for (const line of SEED_003) {
    const li = el('li', undefined, line);
    wrong.append(li);
  }
  const about = el('p', 'fig-note');
  setSeedProse(about, `The list comes from seed 003. ${SEED_WORDS}`);
  seed.append(summary, about, wrong);
  fig.append(legend, list, seed);
  parent.append(fig);

  const stepItem = (s, values) => {
    const li = el('li', 'lm-step');
    li.dataset.step = s.id;
    const label = el('span', 'step-label', s.label);
    const shape = el('span', 'step-shape');
    const t = shapeText(s.shape, values);
    shape.textContent = `${t.symbolic} = ${t.numeric}`;
    li.append(label, shape);
    if (s.weights) {
      const w = el('span', 'step-weights');
      w.textContent = s.weights
        .map(([name, sym]) => {
          const ws = shapeText(sym, values);
          return `${name} ${ws.symbolic} = ${ws.numeric}`;
        })
        .join(' · ');
      li.append(w);
    }
    const detail = el('span', 'step-detail', s.detail);
    li.append(detail);
    return li;
  };

  return {
    figure: fig,
    /**
     * @param {{ steps: object[], values: object, legend: string, seed003: boolean }} structure
     *   the architecture's (lm/architectures.js `structure`)
     * @param {number} T tokens
     */
    update({ steps, values, legend: text, seed003 }, T) {
      title.textContent = `Structure: the shape of every tensor for this model and T = ${T}`;
      legend.textContent = text;
      seed.hidden = !seed003;
      list.replaceChildren();
      let block = null;
      for (const s of steps) {
        if (s.block && !block) {
          const li = el('li', 'lm-block');
          const head = el('span', 'block-title', `× ${values.N} layers (0 … ${values.N - 1}), each:`);
          block = el('ol');
          li.append(head, block);
          list.append(li);
        }
        (s.block ? block : list).append(stepItem(s, values));
      }
    },
  };
}
