// The position lens's head roles as the page shows them (docs/lens.md has the definitions):
// each role's name, colour (from Okabe & Ito's colour-blind-safe set, plots/palette.js, with
// the ink that reads on it at WCAG AA), a letter so the grid does not rest on colour alone, and
// its rule with the thresholds a report used. RoPE models' bands (positional or semantic) too.

/**
 * In the order the lens tries them: the first whose score reaches its threshold names the head.
 * @type {{ role: string, label: string, letter: string, colour: string, ink: string,
 *   score: string | null, rule: (t: Record<string, number>) => string }[]}
 */
export const ROLES = [
  {
    role: 'sink',
    label: 'sink',
    letter: 'S',
    colour: '#d55e00',
    ink: '#000',
    score: 'sink',
    rule: (t) => `mean weight on the first token ≥ ${t.sink}`,
  },
  {
    role: 'previous-token',
    label: 'previous token',
    letter: 'P',
    colour: '#0072b2',
    ink: '#fff',
    score: 'previous_token',
    rule: (t) => `mean weight on the token just before ≥ ${t.previous_token}`,
  },
  {
    role: 'induction',
    label: 'induction',
    letter: 'I',
    colour: '#cc79a7',
    ink: '#000',
    score: 'induction',
    rule: (t) =>
      `on a random sequence repeated, mean weight on the token after the earlier copy of the current one ≥ ${t.induction}`,
  },
  {
    role: 'local',
    label: 'local',
    letter: 'L',
    colour: '#009e73',
    ink: '#000',
    score: 'local',
    rule: (t) => `mean weight within the last ${t.local_window} tokens ≥ ${t.local}`,
  },
  {
    role: 'broad',
    label: 'broad',
    letter: 'B',
    colour: '#c9c9c9',
    ink: '#000',
    score: null,
    rule: () => 'none of the above',
  },
];

/** The entry of role `name` (an unknown name reads as broad). */
export const roleOf = (name) => ROLES.find((r) => r.role === name) ?? ROLES.at(-1);

/** A RoPE head's band: the mark beside its role letter in the grid, and what it means. */
export const BANDS = {
  positional: {
    mark: '●',
    label: 'positional',
    text: 'its score energy leans on the rotation pairs that turn within the trained context (the fast pairs)',
  },
  semantic: {
    mark: '○',
    label: 'semantic',
    text: 'it leans less on them: more on the slow pairs and the unrotated dims',
  },
};
