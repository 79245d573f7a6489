// Prose with `code` spans: the text between a pair of backticks becomes a <code> element, the
// rest text nodes (never parsed as HTML), so a command written in a note reads as code instead
// of showing its backticks. An unpaired backtick stays as it is.

/** The pieces of `text`: { code: boolean, text: string }, in order. */
export function proseParts(text) {
  const pieces = String(text).split('`');
  if (pieces.length % 2 === 0) {
    // An odd number of backticks: the last one opens nothing, so it and what follows stay text.
    const rest = pieces.pop();
    pieces[pieces.length - 1] += `\`${rest}`;
  }
  return pieces.map((t, i) => ({ code: i % 2 === 1, text: t })).filter((p) => p.text !== '');
}

/** Replaces el's content with `text`, its backticked spans as <code>. */
export function setProse(el, text) {
  el.replaceChildren(
    ...proseParts(text).map(({ code, text: t }) => {
      if (!code) return document.createTextNode(t);
      const c = document.createElement('code');
      c.textContent = t;
      return c;
    }),
  );
}
