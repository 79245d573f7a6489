// The lab views' Claims panel: a closed "Claims this view tests" box listing the rows of
// content/claims.js that name the view (the rows docs/claims.md is generated from), each with
// the paper's number, the lab's, the verdict and the command that reproduces it, to copy.
// Everything is in the page: nothing is fetched.
import '../styles/claims.css';
import { CLAIMS, VERDICTS } from '../content/claims.js';
import { el } from '../ui/dom.js';

/** The claims a view tests, in the table's order. */
export const claimsOf = (view) => CLAIMS.filter((c) => c.views.includes(view));

const ABOUT =
  'Each paper’s claim at its own scale beside what this lab measured (mean ± sd over the seeds), the command that ' +
  'reproduces it, and whether it reproduces here. Methods are ranked apart only when their means differ by more ' +
  'than their two sds together; a method under 0.9 exact match in distribution did not train. Every claim, with ' +
  'its details: docs/claims.md in the repository.';

/** A copy button for `code`'s text; where the clipboard is refused, it selects the text instead. */
function copyButton(code, label) {
  const b = el('button', 'claims-copy', 'Copy');
  b.type = 'button';
  b.setAttribute('aria-label', `Copy the command of ${label}`);
  const done = el('span', 'claims-copied');
  done.setAttribute('role', 'status');
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(code.textContent);
      done.textContent = 'copied';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(code);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      done.textContent = 'selected: press Ctrl+C'; // no clipboard permission (or no https)
    }
  });
  return [b, done];
}

/** One claim: its paper as a heading with the verdict, then the numbers, the why and the command. */
function claimItem(c) {
  const item = el('li', 'claims-row');
  item.dataset.claim = c.id;
  item.dataset.verdict = c.verdict;
  const heading = el('h3', 'claims-paper');
  const badge = el('span', 'claims-verdict', VERDICTS[c.verdict].label);
  badge.dataset.verdict = c.verdict;
  heading.append(`${c.paper}: ${c.short} `, badge);

  const fields = el('dl', 'claims-fields');
  const measured = c.verdict !== 'not yet measured';
  for (const [term, text] of [
    ['claim', c.claim],
    ['the paper', c.paperNumber],
    ['this lab', measured ? `${c.labNumber} Seeds: ${c.seeds}.` : c.labNumber],
    ['why', c.why],
  ]) {
    fields.append(el('dt', '', term), el('dd', '', text));
  }
  const code = el('code', '', c.command.join('\n'));
  const pre = el('pre', 'claims-command');
  pre.append(code);
  const command = el('dd');
  command.append(pre, ...copyButton(code, `${c.paper}: ${c.short}`));
  fields.append(el('dt', '', measured ? 'reproduce it' : 'the run that would measure it'), command);

  const title = el('p', 'claims-title');
  title.append(el('cite', '', c.title));
  item.append(heading, title, fields);
  return item;
}

/**
 * The Claims panel of the view `view` (a registry name): a closed <details>, empty of rows (and
 * hidden) when no claim names the view.
 * @returns {HTMLDetailsElement}
 */
export function claimsPanel(view) {
  const rows = claimsOf(view);
  const box = el('details', 'note claims-panel');
  box.dataset.view = view;
  box.hidden = rows.length === 0;
  box.append(el('summary', '', `Claims this view tests (${rows.length})`), el('p', 'claims-about', ABOUT));
  const list = el('ul', 'claims-list');
  list.append(...rows.map(claimItem));
  box.append(list);
  return box;
}
