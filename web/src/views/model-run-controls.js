// The controls of the views that run a language model on demand (Long context, Position lens):
// a checkpoint picker (model.safetensors + config.json, + tokenizer.json), Run and Cancel, and a
// line the progress is said on. `prefix` names their classes (`${prefix}-files`, `-run`, …).
import { el } from './kit.js';

export function modelRunControls(prefix) {
  const ckpt = el('input');
  ckpt.type = 'file';
  ckpt.multiple = true;
  ckpt.accept = '.safetensors,.json';
  ckpt.setAttribute('aria-label', 'checkpoint files');
  const ckptLabel = el('label', `${prefix}-files`, 'checkpoint: model.safetensors + config.json (+ tokenizer.json) ');
  ckptLabel.append(ckpt);
  const run = el('button', `${prefix}-run button-primary`, 'Run');
  run.type = 'button';
  const cancel = el('button', `${prefix}-cancel button`, 'Cancel');
  cancel.type = 'button';
  const buttons = el('div', 'button-row');
  buttons.append(run, cancel);
  const progress = el('p', `${prefix}-progress`);
  progress.setAttribute('aria-live', 'polite');
  return { ckpt, ckptLabel, run, cancel, buttons, progress };
}

/** The files picked in the checkpoint input: { weights, config, tokenizer } or null without both. */
export function pickedCheckpoint(input) {
  const list = [...(input.files ?? [])];
  const weights = list.find((f) => f.name.endsWith('.safetensors'));
  const config =
    list.find((f) => f.name === 'config.json') ??
    list.find((f) => f.name.endsWith('.json') && f.name !== 'tokenizer.json');
  const tokenizer = list.find((f) => f.name === 'tokenizer.json') ?? null;
  return weights && config ? { weights, config, tokenizer } : null;
}
