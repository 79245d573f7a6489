// Series colours: Tableau 10 (categorical, tells apart up to ten lines), cycled beyond. The ten
// values are d3-scale-chromatic's schemeTableau10 (tests/web/colormap.test.js checks them):
// importing the scheme from d3 would bundle its colour interpolation with it, about 10 KB
// gzipped on every page and embed.
export const TABLEAU10 = [
  '#4e79a7',
  '#f28e2c',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc949',
  '#af7aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ab',
];

export const seriesColor = (i) => TABLEAU10[i % TABLEAU10.length];
