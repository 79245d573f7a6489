// The Long context view's default text: a long English text the project may redistribute.
// Source: Debian's base-files package (version 12.4+deb12u*), /usr/share/common-licenses/GPL-3
// and /usr/share/common-licenses/GPL-2, copied byte for byte into licences/gpl-3.0.txt and
// licences/gpl-2.0.txt (licences/index.js: the text experiment's sample, all the FSF's texts).
// Licence: both documents say "Everyone is permitted to copy and distribute verbatim copies of
// this license document, but changing it is not allowed." (Copyright © 2007 and © 1989, 1991
// Free Software Foundation, Inc.). They are shipped verbatim and unchanged; the sample is the
// GPL-3 followed by the GPL-2 (about 12 000 tokens: past 4 × Pythia's 2048).
import gpl2 from './licences/gpl-2.0.txt?raw';
import gpl3 from './licences/gpl-3.0.txt?raw';

export const SAMPLE_SOURCE =
  "GNU GPL v3 followed by GNU GPL v2, verbatim from Debian's base-files (/usr/share/common-licenses); " +
  '© Free Software Foundation, verbatim copying permitted';

/** The sample text (the two licences as shipped, one after the other). */
export const SAMPLE_TEXT = `${gpl3}\n${gpl2}`;
