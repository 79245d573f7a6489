// Where more than MAX_TANGLED lines share one plot they tangle into a band: a row of toggle
// buttons over the plot brings one line forward (the others fade) or shows them all alike.
// The first line starts forward, so the plot reads on first sight, unless the plot is a
// comparison (allAlike: every line starts alike); every line stays drawn.

/** More lines than this get the picker. */
export const MAX_TANGLED = 4;

/**
 * @param {HTMLElement} figureEl the figure, whose canvas box the row goes before
 * @param {HTMLElement} box
 * @param {() => void} onPick repaints the plot
 * @param {{ allAlike?: boolean }} [o] allAlike: start on "all lines", not the first line forward
 */
export function createLinePicker(figureEl, box, onPick, { allAlike = false } = {}) {
  const row = document.createElement('div');
  row.className = 'line-picker';
  row.setAttribute('role', 'group');
  row.setAttribute('aria-label', 'Bring one line forward');
  row.hidden = true;
  figureEl.insertBefore(row, box);
  let labels = [];
  let forward = null; // the label brought forward, or null: all alike

  function render() {
    const entries = [['all lines', null], ...labels.map((l) => [l, l])];
    row.replaceChildren(
      ...entries.map(([text, value]) => {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = text;
        b.setAttribute('aria-pressed', String(forward === value));
        b.addEventListener('click', () => {
          forward = value;
          render();
          onPick();
        });
        return b;
      }),
    );
  }

  return {
    /** New lines: the one forward stays forward while its label is still drawn. */
    update(next) {
      const tangled = next.length > MAX_TANGLED;
      row.hidden = !tangled;
      if (!tangled) forward = null;
      else if (labels.length <= MAX_TANGLED || (forward !== null && !next.includes(forward))) {
        forward = allAlike ? null : next[0];
      }
      const same = next.length === labels.length && next.every((l, i) => l === labels[i]);
      labels = next;
      if (tangled && !same) render(); // a slider step that keeps the lines keeps the buttons
    },
    /** Whether the line labelled `label` is drawn faded. */
    faded: (label) => forward !== null && label !== forward,
    /** The label forward, or null. */
    get forward() {
      return forward;
    },
  };
}
