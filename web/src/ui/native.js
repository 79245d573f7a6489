// "Run it natively": the command lines behind a view, folded under one closed <details>, so a
// view's prose reads as words and the commands (as code, to copy) are one click away.
import { setProse } from './prose.js';

/** A closed "Run it natively" box; set(lines) fills it (prose, commands in backticks), none hides it. */
export function nativeBox(lines = []) {
  const box = document.createElement('details');
  box.className = 'note native';
  const summary = document.createElement('summary');
  summary.textContent = 'Run it natively';
  const body = document.createElement('div');
  box.append(summary, body);
  const set = (next) => {
    body.replaceChildren(
      ...next.map((line) => {
        const p = document.createElement('p');
        setProse(p, line);
        return p;
      }),
    );
    box.hidden = next.length === 0;
  };
  set(lines);
  return { el: box, set };
}
