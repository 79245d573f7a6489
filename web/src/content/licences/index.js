// The text experiment's sample ("Train short, test long", docs/lab.md): the Free Software
// Foundation's licence texts, copied byte for byte from Debian's base-files package
// (12.4+deb12u11, /usr/share/common-licenses: GPL-1, GPL-2, LGPL-2, LGPL-2.1, GFDL-1.2,
// GFDL-1.3, LGPL-3, GPL-3). Licence: each says "Everyone is permitted to copy and distribute
// verbatim copies of this license document, but changing it is not allowed." (© Free Software
// Foundation, Inc.); they are shipped verbatim and unchanged.
//
// The sample is the files concatenated in the order they are imported here (bench/lab/text.py
// reads this order to train on the same bytes natively). GPL-3 comes last: the held-out last
// 10% is its second half, which no other text repeats (LGPL-2.1 is nearly LGPL-2, GFDL-1.3
// nearly GFDL-1.2).
import gpl1 from './gpl-1.txt?raw';
import gpl2 from './gpl-2.0.txt?raw';
import lgpl2 from './lgpl-2.txt?raw';
import lgpl21 from './lgpl-2.1.txt?raw';
import gfdl12 from './gfdl-1.2.txt?raw';
import gfdl13 from './gfdl-1.3.txt?raw';
import lgpl3 from './lgpl-3.txt?raw';
import gpl3 from './gpl-3.0.txt?raw';

export const LICENCE_SAMPLE_SOURCE =
  "the FSF's licence texts (GPL-1, GPL-2, LGPL-2, LGPL-2.1, GFDL-1.2, GFDL-1.3, LGPL-3, GPL-3), verbatim from Debian's base-files; " +
  '© Free Software Foundation, verbatim copying permitted';

/** The sample: every licence above, one after the other, as shipped. */
export const LICENCE_SAMPLE = [gpl1, gpl2, lgpl2, lgpl21, gfdl12, gfdl13, lgpl3, gpl3].join('');
