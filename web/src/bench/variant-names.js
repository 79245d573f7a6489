// Plain names for the benchmark files' variant ids ("2-vec16", "torch-flash"): what a reader
// sees in legends, with the id kept for the tooltip. An id not listed shows as it is.
const PLAIN = {
  '1-scalar': 'simple kernel',
  '1-double': 'simple kernel',
  '2-vec16': 'vectorised kernel',
  '1-naive': 'unfused attention',
  '2-flash': 'fused attention',
  'torch-eager': 'PyTorch, plain ops',
  'torch-math': 'PyTorch SDPA, math backend',
  'torch-flash': 'PyTorch SDPA, flash backend',
};

/** "vectorised kernel, fp16" for variant "2-vec16", dtype "fp16" (and backend, if any). */
export function plainVariant({ variant, dtype, label }) {
  const name = PLAIN[variant];
  if (!name) return label;
  const backend = /\[([^\]]+)\]/.exec(label)?.[1];
  return [name, backend && `${backend} backend`, dtype].filter(Boolean).join(', ');
}
