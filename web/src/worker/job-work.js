// A job's size in units its time grows with (cells computed and coloured; L² · D where a
// similarity matrix dominates): the scheduler predicts a request's time as this size times
// the channel's last measured time per unit (worker/client.js). Kept apart from the jobs so
// the scheduler (in every page and embed) does not carry their code. Jobs absent here always
// run in the worker.
import { isPairMethod } from '../state/methods.js';

export const JOB_WORK = {
  encodings: (p) => p.L * (isPairMethod(p.method) ? p.L : p.D),
  similarity: (p) => p.L * p.L * p.D,
  extrapolation: (p) => p.L * p.L * p.D,
  offset: (p) => p.D * p.D,
};
