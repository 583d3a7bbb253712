/** What `agenttool run` shows while a batch runs: a live table, plain lines, or JSONL. */
import type { BatchAction, BatchState } from '../call-state.js';

export interface BatchView {
  /** Called after each action has been folded into the state. */
  update(state: BatchState, action: BatchAction): void;
  /** Called once, after the last action. */
  finish(state: BatchState): void;
  /**
   * Shows a line for the user (say, that Ctrl-C is cancelling the batch): the live view writes it
   * above its rows and redraws them below it, so that it is neither overwritten nor leaves stale
   * rows behind; the other views write it as a line of their own.
   */
  notice(line: string): void;
  /**
   * Stops drawing while a question is asked on the terminal: the live view clears its rows (the
   * question is written where they were) and shows the cursor; the other views do nothing.
   */
  pause(): void;
  /** Draws again after {@link BatchView.pause}: the live view redraws its rows below the form. */
  resume(): void;
}
