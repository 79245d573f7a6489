// The Length generalisation view's attention maps: for a run trained in this browser (the
// example's CLI runs kept none), a test example past N, a heatmap per head of the chosen layer,
// and for a FIRE model the bias its position MLP added to the same scores.
import { colorize, valueRange } from '../../plots/colormap.js';
import { el } from '../../ui/dom.js';
import { painted } from './figures.js';

const MAP = { title: '', xTitle: 'key', yTitle: 'query', height: 300, compact: false };

/** A token id as the lab's vocabulary writes it: its specials by name, 10 as '+', digits. */
export function tokenNames(model) {
  // In this order: a model whose ids coincide names them as the first.
  const specials = [
    [model.bos_token_id, 'BOS'],
    [model.sep_token_id, 'SEP'],
    [model.eos_token_id, 'EOS'],
    [model.pad_token_id, 'PAD'],
  ];
  return (t) => specials.find(([id]) => id === t)?.[1] ?? (t === 10 ? '+' : String(t));
}

/** What the maps' note says of example `a`: how many answer tokens the model got right. */
export function exampleText(a, N) {
  const right = [];
  for (let t = a.answerStart; t < a.shape[2]; t++) right.push(a.predictions[t - 1] === a.tokens[t]);
  const firstWrong = right.indexOf(false);
  return (
    `Length ${a.length} (trained up to ${N}): ${right.filter(Boolean).length} of ${right.length} answer tokens right ` +
    `given the true prefix; the first wrong one at answer position ${firstWrong === -1 ? '—' : firstWrong}. ` +
    `Rows: queries, columns: keys.`
  );
}

// Keeps `plots` at `n` heatmaps in `grid`.
function resize(shell, plots, n, grid) {
  while (plots.length < n) plots.push(shell.heatmap('attention', MAP, grid));
  while (plots.length > n) plots.pop().destroy();
}

// FIRE's bias bias(i, j) = f(ψ(i − j) / ψ(max(L, i + 1))) of the example's layer, a heatmap per
// head on a scale symmetric about 0 (above the diagonal the mask hides the key: 0). Other
// methods' examples carry no fireBias: the grid empties.
function drawFireBias(plots, about, a, layer, labels) {
  const [, nHead, T] = a?.shape ?? [];
  about.textContent = plots.length
    ? `FIRE's learned bias added to these scores, layer ${layer}: its MLP of ψ(i − j) / ψ(max(L, i + 1)), ` +
      `ψ(x) = log(c·x + 1), with c and the threshold L trained. Blue raises a key's score, red lowers it.`
    : '';
  plots.forEach((plot, h) => {
    const offset = (layer * nHead + h) * T * T;
    const data = a.fireBias.subarray(offset, offset + T * T);
    const range = valueRange(data, true);
    plot.figure.setTitle(`FIRE bias, layer ${layer}, head ${h}`);
    plot.update({
      data,
      rows: T,
      cols: T,
      range,
      cmap: 'RdBu',
      ...colorize(data, 'RdBu', range),
      xLabels: labels,
      yLabels: labels,
    });
  });
}

// Refills a select's options when they differ from `values`; returns whether it did.
function setOptions(select, values) {
  if (select.options.length === values.length && [...select.options].every((o, i) => o.value === values[i]))
    return false;
  select.replaceChildren(...values.map((v) => new Option(v, v)));
  return true;
}

/**
 * The maps, appended to the plots: a method (a run shown with maps), an example length and a
 * layer to choose. `update(rows, N)` offers the rows shown; `onShown(run)` hears which run's
 * maps are drawn (undefined: none). `selected()` is { id, run }.
 */
export function createAttentionMaps(shell, onShown) {
  const method = el('select');
  method.setAttribute('aria-label', 'attention: method');
  const length = el('select');
  length.setAttribute('aria-label', 'attention: example length');
  const layerSelect = el('select');
  layerSelect.setAttribute('aria-label', 'attention: layer');
  const controls = el('div', 'lg-attention-controls');
  controls.append('attention maps of ', method, ' on a test example of length ', length, ' layer ', layerSelect);
  const about = el('p', 'note lg-attention-about');
  const grid = el('div', 'lg-maps lg-attention');
  const fireAbout = el('p', 'note lg-fire-about');
  const fireGrid = el('div', 'lg-maps lg-fire');
  shell.plots.append(controls, about, grid, fireAbout, fireGrid);
  const plots = [];
  const firePlots = [];
  let rows = [];
  let N = 0;
  const selected = () => ({ id: method.value, run: rows.find((r) => r.id === method.value)?.run });

  function draw() {
    const d = selected().run;
    onShown(d);
    if (!d || !d.attention?.length) {
      resize(shell, plots, 0, grid);
      grid.replaceChildren();
      about.textContent = '';
      resize(shell, firePlots, 0, fireGrid);
      drawFireBias(firePlots, fireAbout, null, 0, []);
      return;
    }
    const lengths = d.attention.map((a) => String(a.length));
    if (setOptions(length, lengths)) length.value = lengths[lengths.length - 1];
    const a = d.attention.find((x) => String(x.length) === length.value) ?? d.attention[0];
    const [nLayer, nHead, T] = a.shape;
    if (layerSelect.options.length !== nLayer) {
      layerSelect.replaceChildren(...Array.from({ length: nLayer }, (_, l) => new Option(String(l), String(l))));
    }
    const layer = Number(layerSelect.value) || 0;
    const names = tokenNames(d.result.config.model);
    const labels = Array.from(a.tokens, (t) => names(t));
    about.textContent = exampleText(a, N);
    resize(shell, plots, nHead, grid);
    plots.forEach((plot, h) => {
      const offset = (layer * nHead + h) * T * T;
      plot.figure.setTitle(`layer ${layer}, head ${h}`);
      plot.update(painted(a.maps.subarray(offset, offset + T * T), T, T, { xLabels: labels, yLabels: labels }));
    });
    resize(shell, firePlots, a.fireBias ? nHead : 0, fireGrid);
    drawFireBias(firePlots, fireAbout, a, layer, labels);
  }
  for (const s of [method, length, layerSelect]) s.addEventListener('change', draw);

  return {
    selected,
    /** Offers the runs shown with maps (the choice kept where it still is one), and draws. */
    update(shownRows, trainedN) {
      rows = shownRows;
      N = trainedN;
      const keep = method.value;
      const withMaps = rows.filter((r) => r.run.attention?.length);
      method.replaceChildren(
        ...withMaps.map((r) => new Option(r.seed === undefined ? r.label : `${r.label}, seed ${r.seed}`, r.id)),
      );
      if (withMaps.some((r) => r.id === keep)) method.value = keep;
      controls.hidden = !withMaps.length;
      draw();
    },
  };
}
