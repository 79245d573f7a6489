// The Position lens view's selected head: 'layer.head' in the link ('1.2': layer 1, head 2;
// the registry's `ln.head` pattern), read by the view and its job, kept out of the registry's
// chunk, which every embed loads. A head a model does not have is not refused by the link (a
// local checkpoint's shape is known only once loaded): the view says so and draws the grid.

/** '1.2' → { layer: 1, head: 2 } (a value the `ln.head` setting takes). */
export function parseHead(s) {
  const [layer, head] = s.split('.').map(Number);
  return { layer, head };
}

/** [layers, heads] a lens report covers (a report lists every layer × head once). */
export function reportShape(report) {
  let layers = 0;
  let heads = 0;
  for (const h of report.heads) {
    layers = Math.max(layers, h.layer + 1);
    heads = Math.max(heads, h.head + 1);
  }
  return [layers, heads];
}

/** Why head `s` is not in a model of `layers` × `heads`, or null. */
export function headOutsideShape(s, layers, heads) {
  const { layer, head } = parseHead(s);
  if (layer < layers && head < heads) return null;
  return `head ${s} is not in this model: it has ${layers} layers × ${heads} heads (0.0 to ${layers - 1}.${heads - 1}); pick one in the grid`;
}
