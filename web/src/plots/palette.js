// Series colours: Tableau 10 (categorical, tells apart up to ten lines), cycled beyond.
import { schemeTableau10 } from 'd3-scale-chromatic';

export const seriesColor = (i) => schemeTableau10[i % schemeTableau10.length];
