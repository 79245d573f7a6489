// Embed settings from a hash or from <poslab-figure> attributes: allow-lists, ranges, hide
// flags, and hostile input that must come back as defaults plus a message, never as a value.
import { describe, expect, it } from 'vitest';
import { observedAttributeNames, parseEmbedHash, parseFigureAttributes } from '../../web/src/embed/params.js';
import { DEFAULT_PLOT } from '../../web/src/embed/plots.js';
import { defaults } from '../../web/src/state/registry.js';

const XSS = '<img src=x onerror="window.__pwned=1">';

describe('parseEmbedHash', () => {
  it('Embed.HashReadsStatePlotAndFlags', () => {
    const s = parseEmbedHash('#enc.method=rope&enc.L=128&plot=encodings.vectors&controls=0&enc.cmap_hide=1');
    expect(s.state['enc.method']).toBe('rope');
    expect(s.state['enc.L']).toBe(128);
    expect(s.state.view).toBe('encodings');
    expect(s.plot).toBe('encodings.vectors');
    expect(s.controls).toBe(false);
    expect(s.hidden).toEqual(['enc.cmap']);
    expect(s.problems).toEqual([]);
  });

  it('Embed.EmptyHashIsTheDefaultPlot', () => {
    const s = parseEmbedHash('');
    expect(s.plot).toBe(DEFAULT_PLOT);
    expect(s.controls).toBe(true);
    expect(s.state).toEqual({ ...defaults(), view: 'encodings' });
    expect(s.problems).toEqual([]);
  });

  it('Embed.AliasPicksItsView', () => {
    expect(parseEmbedHash('plot=heatmap').plot).toBe('encodings.table');
    expect(parseEmbedHash('plot=similarity.matrix').state.view).toBe('similarity');
  });

  it.each([
    ['enc.L=99999999', 'enc.L'],
    ['enc.L=-1', 'enc.L'],
    ['enc.L=1e400', 'enc.L'],
    ['enc.D=0x10', 'enc.D'],
    ['enc.base=NaN', 'enc.base'],
    ['enc.method=rope2', 'enc.method'],
    ['enc.cmap=%3Cscript%3E', 'enc.cmap'],
  ])('Embed.OutOfRangeOrUnknownValueFallsBack (%s)', (hash, key) => {
    const s = parseEmbedHash(hash);
    expect(s.state[key]).toBe(defaults()[key]);
    expect(s.problems.length).toBe(1);
    expect(s.problems[0]).toContain(key);
  });

  it('Embed.HostilePlotAndFlagsAreRefused', () => {
    const s = parseEmbedHash(
      `plot=${encodeURIComponent(XSS)}&controls=javascript:alert(1)&${encodeURIComponent(XSS)}_hide=1&view=gallery`,
    );
    expect(s.plot).toBe(DEFAULT_PLOT);
    expect(s.controls).toBe(true);
    expect(s.hidden).toEqual([]);
    expect(s.state.view).toBe('encodings'); // the plot decides the view, not the hash
    expect(s.problems.length).toBe(3);
    expect(s.problems.join(' ')).toContain('<img'); // reported as text, to be shown as text
  });

  it('Embed.HugeHashIsRefusedWhole', () => {
    const s = parseEmbedHash(`enc.L=64&x=${'a'.repeat(10000)}`);
    expect(s.state['enc.L']).toBe(50);
    expect(s.problems[0]).toMatch(/too long/);
  });

  it('Embed.PlotGivenTwiceKeepsTheFirst', () => {
    const s = parseEmbedHash('plot=offset.matrix&plot=attention');
    expect(s.plot).toBe('offset.matrix');
    expect(s.problems.length).toBe(1);
  });
});

describe('parseFigureAttributes', () => {
  it('Figure.ShortNamesMapToTheViewKeys', () => {
    const s = parseFigureAttributes({
      plot: 'heatmap',
      method: 'rope',
      len: '128',
      dim: '64',
      style: 'width:1px',
      class: 'x',
      'data-foo': '1',
    });
    expect(s.state['enc.method']).toBe('rope');
    expect(s.state['enc.L']).toBe(128);
    expect(s.state['enc.D']).toBe(64);
    expect(s.problems).toEqual([]);
  });

  it('Figure.AttributeNamesAreCaseInsensitive', () => {
    const s = parseFigureAttributes([
      { name: 'PLOT', value: 'similarity.matrix' },
      { name: 'L', value: '77' },
      { name: 'metric', value: 'dot' },
    ]);
    expect(s.plot).toBe('similarity.matrix');
    expect(s.state['sim.L']).toBe(77);
    expect(s.state['sim.metric']).toBe('dot');
  });

  it('Figure.HideFlagsAndControls', () => {
    const s = parseFigureAttributes({ plot: 'heatmap', controls: '0', cmap_hide: '1', base_hide: '0' });
    expect(s.controls).toBe(false);
    expect(s.hidden).toEqual(['enc.cmap']);
    expect(s.problems).toEqual([]);
  });

  it('Figure.ScriptPayloadsAreInert', () => {
    const s = parseFigureAttributes({
      plot: 'heatmap',
      method: XSS,
      len: '1e9',
      onload: 'alert(1)',
      href: 'javascript:alert(1)',
      cmap: 'javascript:alert(1)',
    });
    expect(s.state['enc.method']).toBe('sinusoidal');
    expect(s.state['enc.L']).toBe(50);
    expect(s.state['enc.cmap']).toBe('viridis');
    expect(s.problems.length).toBe(5);
  });

  it('Figure.KeysOfAnotherViewAreNotSettings', () => {
    const s = parseFigureAttributes({ plot: 'heatmap', metric: 'dot' });
    expect(s.state['sim.metric']).toBe('cosine');
    expect(s.problems[0]).toMatch(/metric/);
  });

  it('Figure.ObservedAttributesCoverEveryShortName', () => {
    const names = observedAttributeNames();
    for (const n of ['plot', 'controls', 'method', 'len', 'dim', 'theme', 'cmap_hide', 'metric', 'h'])
      expect(names).toContain(n);
  });
});
