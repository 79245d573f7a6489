// Plain names for the benchmark files' variant ids ("2-vec16", "torch-flash"): what a reader
// sees in legends, with the id kept for the tooltip. An id not listed shows as it is.
import { METHOD_INFO } from '../content/methods.js';

const PLAIN = {
  '1-scalar': 'simple kernel',
  '1-double': 'simple kernel',
  '2-vec16': 'vectorised kernel',
  '1-naive': 'unfused attention',
  '2-flash': 'fused attention',
  'torch-eager': 'PyTorch, plain ops',
  'torch-math': 'PyTorch SDPA, math backend',
  'torch-flash': 'PyTorch SDPA, flash backend',
  // The numbered CUDA variants (cpp/cuda/*.cu's header comments say how each works).
  '3-rotate': 'vectorised kernel, rows by rotation',
  '3-flash128': 'fused attention, 128 queries a block',
  '4-flash128x2': 'fused attention, 128 queries, two tiles a warp',
  'torch-flex': 'PyTorch FlexAttention',
  'torch-sdpa+bias': 'PyTorch SDPA with a bias tensor',
  'torch-rope+flash': 'PyTorch RoPE, then SDPA flash',
};
// "rope+<variant>": RoPE applied inside that fused attention kernel.
const FUSED_ROPE = 'rope+';

/** A kernel's name as the methods' table labels it ('rope' → 'RoPE'); 'attention' stays. */
export const kernelName = (kernel) => METHOD_INFO[kernel]?.label ?? kernel;

/** "vectorised kernel, fp16" for variant "2-vec16", dtype "fp16" (and backend, if any). */
export function plainVariant({ variant, dtype, label }) {
  const name = variant.startsWith(FUSED_ROPE)
    ? PLAIN[variant.slice(FUSED_ROPE.length)] && `RoPE in the ${PLAIN[variant.slice(FUSED_ROPE.length)]}`
    : PLAIN[variant];
  if (!name) return label;
  const backend = /\[([^\]]+)\]/.exec(label)?.[1];
  return [name, backend && `${backend} backend`, dtype].filter(Boolean).join(', ');
}
