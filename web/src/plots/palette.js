// Series colours: Okabe & Ito's colour-blind-safe set ("Color Universal Design", 2008), told
// apart under the common colour-vision deficiencies, cycled beyond its eight. Its black is
// left out (it vanishes on the dark theme's panels) and grey takes its place last; yellow,
// the weakest on a white panel, comes late. tests/web/colormap.test.js checks the values.
export const OKABE_ITO = [
  '#0072b2', // blue
  '#e69f00', // orange
  '#009e73', // bluish green
  '#d55e00', // vermillion
  '#56b4e9', // sky blue
  '#cc79a7', // reddish purple
  '#f0e442', // yellow
  '#999999', // grey, for black
];

// Past those eight, for the position methods' fixed colours only: five of Paul Tol's muted
// colour-blind-safe scheme (wine, teal, indigo, olive, rose), far from every colour above.
export const TOL_MUTED_EXTRA = ['#882255', '#44aa99', '#332288', '#999933', '#cc6677'];

export const seriesColor = (i) => OKABE_ITO[i % OKABE_ITO.length];
