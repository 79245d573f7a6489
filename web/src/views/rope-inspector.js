// The RoPE inspector: a model's position scheme read off its config.json, no weights. A bundled
// public config (content/rope-configs) or one pasted or opened here; the core reads it
// (jobs/rope-config.js on the language-model module) into layers (RoPE base, window, NoPE) and,
// per RoPE base, the wavelength of each pair before and after rope_scaling, the pairs that turn
// inside the trained context, the attention factor and the context reached.
import { range } from '../plots/lineplot.js';
import { ROPE_CONFIGS } from '../state/rope-configs.js';
import { createIntro, defineView, el, pasteOrOpen } from './kit.js';
import {
  attentionText,
  axisLines,
  count,
  layerRuns,
  mlaFacts,
  positionText,
  referenceLines,
  schemeFacts,
  temperatureText,
} from './rope-report.js';

const SPECS = [
  {
    key: 'ri.config',
    label: 'config.json',
    kind: 'select',
    options: [...ROPE_CONFIGS, ['pasted', 'pasted or opened here…']],
  },
];

const NOTE =
  'Each pair of dimensions i turns by θᵢ = base^(−2i/R) per position, one full turn every 2π/θᵢ positions (its wavelength). ' +
  'Pairs whose wavelength fits in the trained context N have turned through every angle in training; the slower ones have not, so past N they meet angles never seen. ' +
  'The first pair that does not is the critical pair i, at dimension 2i: YaRN’s ramp (NTK-by-parts) and llama3’s bands leave the fast pairs alone and stretch the slow ones by the factor, linear stretches all, longrope gives each pair its own factor.';
const NATIVE = [
  'The same report for a config file: `poslab rope-config --config config.json -o report.json` (M-RoPE’s sample prompt: `--mrope-sample 3,6,8,2`)',
];

// The bundled texts live in this view's chunk (about 20 KB), loaded with the view.
const CONFIG_TEXTS = import.meta.glob('../content/rope-configs/*.json', {
  eager: true,
  query: '?raw',
  import: 'default',
});

/** A bundled config's text. */
function bundledText(name) {
  const text = CONFIG_TEXTS[`../content/rope-configs/${name}.json`];
  if (text === undefined) throw new Error(`no bundled config ${name}`);
  return text;
}

function tableOf(headers, rows) {
  const table = el('table', 'ri-table');
  const head = el('tr');
  for (const h of headers) head.append(el('th', '', h));
  table.append(head);
  for (const row of rows) {
    const tr = el('tr');
    for (const cell of row) tr.append(el('td', '', cell));
    table.append(tr);
  }
  return table;
}

/** The report's words after the plots: layers, schemes, MLA, temperature, M-RoPE, notes. */
function writeAbout(about, r, p) {
  about.replaceChildren();
  const kind = r.textConfig ? `${r.modelType} (text_config)` : r.modelType || 'no model_type';
  about.append(
    el('h3', '', `${p.config === 'pasted' ? 'Pasted config' : ROPE_CONFIGS.find(([n]) => n === p.config)[1]}: ${kind}`),
    el(
      'p',
      '',
      `${r.heads} query heads, ${r.kvHeads} key/value heads (${r.heads === r.kvHeads ? 'one per query head' : `each shared by ${r.heads / r.kvHeads} query heads`}), head width ${r.headDim}${r.mla ? ` (${r.mla.qkRopeHeadDim} of them rotated)` : ''}; max_position_embeddings ${count(r.maxPositionEmbeddings)}.`,
    ),
    tableOf(
      ['layers', 'attention', 'position'],
      layerRuns(r.layers).map((run) => [
        run.from === run.to ? `${run.from}` : `${run.from}–${run.to}`,
        attentionText(run),
        positionText(run, r.schemes),
      ]),
    ),
  );
  const facts = (title, lines) => {
    const list = el('ul', 'ri-facts');
    for (const fact of lines) list.append(el('li', '', fact));
    about.append(el('h4', '', title), list);
  };
  if (r.mla) facts('Multi-head latent attention (MLA)', mlaFacts(r.mla, r.schemes[0]));
  for (const s of r.schemes) {
    facts(
      `RoPE base ${count(s.base)}${r.schemes.length > 1 ? ` (${s.name})` : ''}`,
      schemeFacts(s, r.maxPositionEmbeddings),
    );
  }
  if (r.temperature) facts('NoPE layers’ temperature', [temperatureText(r.temperature)]);
  if (r.mrope) {
    const m = r.mrope;
    const { sample } = m;
    facts(`M-RoPE (mrope_section [${m.section.join(', ')}], ${m.interleaved ? 'interleaved' : 'in blocks'})`, [
      ...axisLines(m.axes),
      `a prompt of ${sample.textBefore} text tokens, an image of ${sample.imagePatches.join(' × ')} patches (${sample.tokens.split('I').length - 1} tokens after the ${m.spatialMergeSize} × ${m.spatialMergeSize} merge) and ${sample.textAfter} text tokens: the ids below, as transformers’ get_rope_index gives them (the next token’s id is its index + ${sample.ropeDelta})`,
    ]);
    const wide = el('div', 'ri-wide');
    wide.append(
      tableOf(
        ['', ...[...sample.tokens].map((k) => (k === 'T' ? 'text' : 'image'))],
        ['t', 'h', 'w'].map((axis) => [axis, ...sample[axis].map(String)]),
      ),
    );
    about.append(wide);
  }
  if (r.notes.length) {
    const list = el('ul', 'ri-notes');
    for (const n of r.notes) list.append(el('li', '', n));
    about.append(el('h4', '', 'Read with care'), list);
  }
  about.append(
    el('p', 'note', r.ignoredKeys.length ? `Keys not read: ${r.ignoredKeys.join(', ')}.` : 'Every key was read.'),
  );
}

/** The report's plots: wavelengths, scaled ratios, the NoPE query scale, M-RoPE ids. */
function plotReport({ waves, ratio, temperature, mrope }, r) {
  const series = [];
  const ratios = [];
  for (const s of r.schemes) {
    const tag = r.schemes.length > 1 ? ` (${s.name})` : '';
    const x = range(s.wavelength.length);
    series.push({ label: `original${tag}`, x, y: Float64Array.from(s.wavelength) });
    if (s.scaling !== 'none') {
      const short = s.scaling === 'longrope' ? ' short' : '';
      series.push({
        label: `${s.scaling}${short}${tag}`,
        x,
        y: Float64Array.from(s.wavelengthScaled),
        dashed: true,
      });
      ratios.push({
        label: `${s.scaling}${short}${tag}`,
        x,
        y: Float64Array.from(s.invFreqScaled, (v, i) => v / s.invFreq[i]),
      });
    }
    if (s.wavelengthLong) {
      series.push({ label: `${s.scaling} long${tag}`, x, y: Float64Array.from(s.wavelengthLong), dashed: true });
      ratios.push({
        label: `${s.scaling} long${tag}`,
        x,
        y: Float64Array.from(s.invFreqLong, (v, i) => v / s.invFreq[i]),
      });
    }
  }
  waves.update(series, { logY: true, refLines: referenceLines(r.schemes) });
  ratio.figure.el.hidden = ratios.length === 0;
  if (ratios.length) ratio.update(ratios, { logY: false });
  temperature.figure.el.hidden = !r.temperature;
  if (r.temperature) {
    // A staircase: each sampled step start holds until the next one.
    const { positions: p, scales } = r.temperature;
    const x = p.flatMap((v, i) => (i + 1 < p.length ? [v, p[i + 1] - 1] : [v]));
    const y = scales.flatMap((v, i) => (i + 1 < p.length ? [v, v] : [v]));
    temperature.update([{ label: 'query scale', x: Float64Array.from(x), y: Float64Array.from(y) }], {
      logY: false,
    });
  }
  mrope.figure.el.hidden = !r.mrope;
  if (r.mrope) {
    const { sample } = r.mrope;
    const x = range(sample.tokens.length);
    mrope.update(
      ['t', 'h', 'w'].map((axis, k) => ({
        label: { t: 'time', h: 'height', w: 'width' }[axis],
        x,
        y: Float64Array.from(sample[axis]),
        dashed: k > 0,
      })),
      { logY: false },
    );
  }
}

export default defineView('rope-inspector', {
  controls: SPECS,
  job: 'ropeConfig', // on the language-model module (LM_JOBS), so not the registry's
  build(shell) {
    createIntro(shell, { title: 'RoPE inspector', note: NOTE, native: NATIVE });

    // Page-local input: a pasted or opened config (never in the link).
    const local = el('div', 'local-input');
    const { area, file, elements } = pasteOrOpen({
      id: 'ri-text',
      label: 'config.json text (stays on this page: a link does not carry it)',
      placeholder: 'Paste a config.json here (a multimodal one’s text_config is read)',
      rows: 8,
      fileLabel: 'or open a config.json',
      accept: '.json,application/json',
    });
    area.spellcheck = false;
    local.append(...elements);
    shell.panel.append(local);

    const waves = shell.lines('wavelengths', {
      title: 'Wavelength 2π/θᵢ per pair',
      xTitle: 'pair i',
      yTitle: 'wavelength (positions)',
      height: 340,
    });
    const ratio = shell.lines('ratio', {
      title: 'Scaled θᵢ / original θᵢ',
      xTitle: 'pair i',
      yTitle: 'ratio',
      height: 260,
    });
    const temperature = shell.lines('temperature', {
      title: 'NoPE layers’ query scale by position',
      xTitle: 'position p',
      yTitle: 'query scale',
      height: 260,
    });
    const mrope = shell.lines('mrope', {
      title: 'M-RoPE position ids: text, one image, text',
      xTitle: 'token',
      yTitle: 'position id',
      height: 260,
    });

    // The words after the plots: on a phone the first plot starts in the first screen.
    const about = el('div', 'ri-about');
    shell.plots.append(about);

    let text = ''; // the pasted text
    let timer = 0;
    area.addEventListener('input', () => {
      text = area.value;
      clearTimeout(timer);
      timer = setTimeout(() => shell.refresh(), 250); // typing: one run per pause
    });
    file.addEventListener('change', async () => {
      const f = file.files?.[0];
      if (!f) return;
      area.value = text = await f.text();
      shell.refresh();
    });

    function draw({ report: r }, p) {
      writeAbout(about, r, p);
      plotReport({ waves, ratio, temperature, mrope }, r);
    }

    return {
      show(p) {
        local.hidden = p.config !== 'pasted';
      },
      params: (p) =>
        p.config === 'pasted'
          ? { name: 'pasted config', text }
          : { name: `${p.config}.json`, text: bundledText(p.config) },
      key: (p) => ({ config: p.config, text: p.config === 'pasted' ? text : '' }),
      demand(p) {
        if (p.config === 'pasted' && !text.trim()) return 'paste a config.json or open one';
        return null;
      },
      draw,
    };
  },
});
