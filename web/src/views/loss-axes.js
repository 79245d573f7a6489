// The titles of the loss figures that more than one view draws, kept in one place so the same
// quantity is named the same way wherever it is plotted.

/** Next-token loss at each position of a text (long-context.js, lens.js). */
export const LOSS_BY_POSITION = { title: 'Next-token loss by position', xTitle: 'position', yTitle: 'loss (nats)' };

/** Loss against training step (the labs); `unit`: 'nats', or 'nats per byte' for the text lab. */
export const trainingLoss = (unit) => ({ title: 'Training loss', xTitle: 'step', yTitle: `loss (${unit})` });
