// The controls of the views that run a language model on demand (Long context, Position lens,
// Surgery): a checkpoint picker (model.safetensors + config.json, + tokenizer.json), Run and
// Cancel, and a line the progress is said on. `prefix` names their classes (`${prefix}-files`,
// `-run`, …). textRunControls adds the text the model reads, as the lens and Surgery take it.
import { el, pasteOrOpen } from './kit.js';

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

/**
 * The text a model reads (never in the link; empty: the held-out tenth of the lab's sample),
 * a text file that fills it, a line for what is wrong with it, then modelRunControls (the
 * checkpoint picker only with `checkpoint`), in the view's settings. Typing (after a pause) or
 * opening a file runs the view's cycle again. `id`: the text box's id.
 */
export function textRunControls(shell, { id, prefix, checkpoint = false }) {
  const local = el('div', 'local-input');
  const { area, file, elements } = pasteOrOpen({
    id,
    label: 'text the model reads',
    placeholder:
      'Paste a text here (empty: the held-out tenth of the lab’s sample, which the lab’s model never trained on)',
    rows: 3,
    fileLabel: 'or a text file',
    accept: '.txt,text/plain',
  });
  const textError = el('span', `control-error ${prefix}-text-error`);
  textError.setAttribute('role', 'status');
  const controls = modelRunControls(prefix);
  const { ckptLabel, buttons, progress } = controls;
  local.append(...elements, textError, ...(checkpoint ? [ckptLabel] : []), buttons, progress);
  shell.panel.append(local);
  let timer = 0;
  area.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => shell.refresh(), 300); // typing: one run per pause
  });
  file.addEventListener('change', async () => {
    const f = file.files?.[0];
    if (!f) return;
    area.value = await f.text();
    shell.refresh();
  });
  return { ...controls, area, textError, showTextError: (message) => (textError.textContent = message) };
}
