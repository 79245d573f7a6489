// The code of the same-origin Blob worker that runs PosLab's compute worker on another site's
// page (embed/compute.js says why). Apart from compute.js so that it can be run in a test.
import { describeLoadFailure, recordViolations } from '../worker/load-failure.js';

/**
 * The Blob worker's code. The import is dynamic, not static, so that a refused or unreachable
 * worker module becomes a 'fatal' message saying why (a static import's failure reaches the
 * page as an error event without a message). Messages that arrive while the module loads are
 * held and replayed to it: it sets its own handler when it runs.
 * @param {string} url the absolute URL of PosLab's compute worker module
 */
export function blobWorkerSource(url) {
  const target = JSON.stringify(url);
  return `const violations = (${recordViolations})(self);
const describeLoadFailure = ${describeLoadFailure};
const early = [];
const hold = ({ data }) => early.push(data);
self.addEventListener('message', hold);
import(${target}).then(
  () => {
    self.removeEventListener('message', hold);
    for (const data of early) self.dispatchEvent(new MessageEvent('message', { data }));
  },
  async (error) => {
    const violation = await violations.latest();
    const what = "PosLab's worker";
    self.postMessage({ type: 'fatal', message: describeLoadFailure({ what, url: ${target}, error, foreign: true, violation }) });
  },
);
`;
}
