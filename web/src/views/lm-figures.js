// The Models view's figures: which model ran, the tokens, every layer × head's map (lm-grid.js),
// the chosen head's full map, the chosen layer's heads, the next-token top 10 and the config
// (lm-tables.js), and the model's structure with every tensor's shape (lm-diagram.js). `draw`
// takes a forward pass's result and the settings; `select` redraws the chosen layer and head.
import { architecture, parameterTotal } from '../lm/architectures.js';
import { formatBytes, formatCount, shortCount } from '../lm/format.js';
import { RANDOM_SEED, maxTokens } from '../lm/shapes.js';
import { colorize } from '../plots/colormap.js';
import { createHeatmap } from '../plots/heatmap.js';
import { el } from '../ui/dom.js';
import { plainFigure } from './kit.js';
import { createDiagram } from './lm-diagram.js';
import { createHeadGrid } from './lm-grid.js';
import { renderChips, renderConfigTables, renderTopTable } from './lm-tables.js';

const RANDOM_LABEL = `random weights (seed ${RANDOM_SEED}), not trained: the attention patterns mean nothing`;

/** Colours one map on this thread (a few T×T maps for the selected layer: cheap). */
function painted(m, labels) {
  const { rgba, specials } = colorize(m.data, m.cmap, m.range);
  return {
    data: m.data,
    rows: m.rows,
    cols: m.cols,
    range: m.range,
    cmap: m.cmap,
    rgba,
    specials,
    xLabels: labels,
    yLabels: labels,
  };
}

/** What the model line says of the model that ran (`loadedLabel`: a hub model's name). */
export function modelText(info, loadedLabel) {
  const params = parameterTotal(info.config);
  if (info.kind === 'random') {
    return {
      label: RANDOM_LABEL,
      detail:
        `Shape: ${info.label} · ${formatCount(params)} parameters · ${info.dtype} · ${formatBytes(info.bytes)} in memory · ${info.threadNote}. ` +
        'Load a trained checkpoint to see real attention.',
    };
  }
  return {
    label:
      loadedLabel ??
      `Loaded: ${info.name}${info.configName ? ` with ${info.configName}` : ' (shape read from its header)'}`,
    detail:
      `${architecture(info.architecture).name} · ${shortCount(params)} parameters (${formatCount(params)}) · ${info.dtype} · ${formatBytes(info.bytes)} in memory ` +
      `(file ${formatBytes(info.fileBytes)}) · ${info.threadNote}. The random-init shape setting is not used while a file is loaded.`,
  };
}

/** The tokens figure's title: T, and what caps it (the model's context or this view's limit). */
export function tokensText(r) {
  const T = r.ids.length;
  const arch = architecture(r.model.architecture);
  const cap = maxTokens(r.model.config);
  const context = arch.context(r.model.config);
  return (
    `Tokens: T = ${T} (at most ${cap}: ` +
    (cap === context
      ? `T is capped by ${arch.contextKey} = ${cap})`
      : `this view’s limit; the model’s ${arch.contextKey} is ${context})`)
  );
}

// The chosen layer's heads, a small map each; a click opens one above.
function createLayerHeads(plots, onPick) {
  const title = el('h3', '', 'One layer, every head');
  const box = el('div', 'grid-4 lm-heads');
  plots.append(title, box);
  let heads = [];
  const ensure = (H) => {
    if (heads.length === H) return;
    for (const h of heads) h.destroy();
    heads = Array.from({ length: H }, (_, h) => {
      const hm = createHeatmap(box, { title: `Head ${h}`, xTitle: 'key', yTitle: 'query', height: 200, compact: true });
      hm.figure.canvas.addEventListener('click', () => onPick(h));
      return hm;
    });
  };
  return {
    update(r, layer, head) {
      title.textContent = `Layer ${layer}: all ${r.heads} heads (click one to open it above)`;
      ensure(r.heads);
      heads.forEach((hm, h) => {
        hm.update(painted(r.heatmaps[`L${layer}H${h}`], r.labels));
        hm.figure.el.classList.toggle('selected', h === head);
      });
    },
  };
}

/** The figures, appended to the view's plots; `pick(layer, head)` sets the chosen head. */
export function createLmFigures(plots, pick) {
  const modelBox = el('div', 'lm-model');
  const modelLabel = el('p', 'lm-model-label');
  const modelDetail = el('p', 'lm-model-detail');
  modelBox.append(modelLabel, modelDetail);
  const positionNote = el('p', 'lm-position-note');
  positionNote.setAttribute('role', 'note');
  const busy = el('p', 'lm-busy');
  busy.setAttribute('role', 'status');
  const { fig: tokensFig, title: tokensTitle } = plainFigure('lm-tokens');
  tokensTitle.textContent = 'Tokens';
  const chips = el('div', 'lm-chips');
  tokensFig.append(chips);
  const tables = el('div', 'grid-2 lm-tables');
  const topBox = el('div', 'fig lm-top');
  const configBox = el('div', 'fig lm-config-box');
  tables.append(topBox, configBox);

  plots.append(modelBox, positionNote, busy, tokensFig);
  const grid = createHeadGrid(plots, { onPick: pick });
  const full = createHeatmap(plots, { title: 'Layer 0 · head 0', xTitle: 'key', yTitle: 'query', height: 460 });
  full.figure.el.classList.add('lm-full');
  const layerHeads = createLayerHeads(plots, (h) => pick(undefined, h));
  plots.append(tables);
  const diagram = createDiagram(plots);

  return {
    busy,
    /** The chosen layer and head (already within the model's) of result r. */
    select(r, layer, head) {
      grid.select(layer, head);
      full.figure.setTitle(`Layer ${layer} · head ${head}: attention weights (query × key)`);
      full.update(painted(r.heatmaps[`L${layer}H${head}`], r.labels));
      layerHeads.update(r, layer, head);
    },
    /** Everything but the chosen head: the model, tokens, grid, top 10, config and structure. */
    draw(r, loadedLabel) {
      const T = r.ids.length;
      const arch = architecture(r.model.architecture);
      const text = modelText(r.model, loadedLabel);
      modelBox.classList.toggle('random', r.model.kind === 'random');
      modelLabel.textContent = text.label;
      modelDetail.textContent = text.detail;
      tokensTitle.textContent = tokensText(r);
      renderChips(chips, r.ids, r.pieces);
      positionNote.textContent = r.positionNote;
      positionNote.classList.toggle('warn', r.position !== 'learned');
      grid.update(r.layers, r.heads, (l, h) => r.heatmaps[`L${l}H${h}`], arch.kvHeads(r.model.config));
      renderTopTable(topBox, r.top, r.pieces[T - 1]);
      renderConfigTables(configBox, r.model.config, r.model.architecture);
      diagram.update(arch.structure(r.model.config, T, r.position), T);
    },
  };
}
