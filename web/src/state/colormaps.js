// The colour maps the settings offer, by d3-scale-chromatic's names: the one list the registry's
// settings and the generated tables (plots/colormap-luts.js, `npm run generate`) read. A module
// of its own so the generator imports nothing it writes.
export const CMAPS = ['viridis', 'Blues', 'RdBu'];
