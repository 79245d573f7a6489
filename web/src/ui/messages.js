// The page-level message bar: what part of a link was ignored, or why the core did not load.
// Text only (textContent): a hostile link's contents can never become markup.

export function createMessages(bar) {
  const show = (title, lines, kind) => {
    bar.replaceChildren();
    if (!lines.length) {
      bar.hidden = true;
      return;
    }
    bar.className = `messages ${kind}`;
    const head = document.createElement('strong');
    head.textContent = title;
    const list = document.createElement('ul');
    for (const line of lines.slice(0, 8)) {
      const li = document.createElement('li');
      li.textContent = line;
      list.append(li);
    }
    if (lines.length > 8) {
      const li = document.createElement('li');
      li.textContent = `… and ${lines.length - 8} more`;
      list.append(li);
    }
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'close';
    close.textContent = '×';
    close.setAttribute('aria-label', 'Dismiss message');
    close.addEventListener('click', () => (bar.hidden = true));
    bar.append(close, head, list);
    bar.hidden = false;
  };
  return {
    linkProblems: (problems) =>
      show(
        'Parts of this link could not be used as given (defaults or the nearest allowed value instead):',
        problems,
        'warn',
      ),
    fatal: (message) => show('The computing core could not start:', [message], 'error'),
  };
}
