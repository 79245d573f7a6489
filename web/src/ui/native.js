// "Run it natively": the command lines behind a view, folded under one closed <details>, so a
// view's prose reads as words and the commands (as code, to copy) are one click away.
import { el } from './dom.js';
import { setProse } from './prose.js';

/** A closed "Run it natively" box; set(lines) fills it (prose, commands in backticks), none hides it. */
export function nativeBox(lines = []) {
  const body = el('div');
  const box = el('details', 'note native');
  box.append(el('summary', undefined, 'Run it natively'), body);
  const line = (text) => {
    const p = el('p');
    setProse(p, text);
    return p;
  };
  const set = (next) => {
    body.replaceChildren(...next.map(line));
    box.hidden = next.length === 0;
  };
  set(lines);
  return { el: box, set };
}
