// The RoPE inspector's job, on the language-model module (which reads configs): a config.json's
// text → its report (core/rope-config.js). No weights, so it takes a millisecond or two.
export function ropeConfig(lab, p) {
  return { report: lab.ropeConfig(p.text, p.name) };
}
