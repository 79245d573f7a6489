// The language-model module's lab (poslab-lm): GPT-2's API (gpt2.js), GPT-NeoX's
// (gpt-neox.js), the Llama family's (llama.js) and the RoPE inspector (rope-config.js) bound
// to one instantiated module, so one heap holds any of the models.
import { bindGpt2 } from './gpt2.js';
import { bindGptNeox } from './gpt-neox.js';
import { bindLlama } from './llama.js';
import { guardMethods, unwrap } from './raw.js';
import { bindRopeConfig } from './rope-config.js';

/** GPT-2's methods unchanged, plus GPT-NeoX's, Llama's, architectureOf, ropeConfig and the thread count. */
export function bindLm(m) {
  const threads = {
    /** Threads the products and attention use: 1 up to maxThreads() (above 1 only in the threaded build). */
    setThreads: (n) => void unwrap(m.setThreads(n)),
    threads: () => m.threads(),
    maxThreads: () => m.maxThreads(),
    /** Where the thread pool's time went since resetPoolProfile(), in ms (base/threads.hpp's PoolProfile). */
    poolProfile: () => m.poolProfile(),
    resetPoolProfile: () => m.resetPoolProfile(),
  };
  return { ...bindGpt2(m), ...guardMethods({ ...bindGptNeox(m), ...bindLlama(m), ...bindRopeConfig(m), ...threads }) };
}
