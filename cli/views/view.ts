/** What `agenttool run` shows while a batch runs: a live table, plain lines, or JSONL. */
import type { BatchAction, BatchState } from '../call-state.js';

export interface BatchView {
  /** Called after each action has been folded into the state. */
  update(state: BatchState, action: BatchAction): void;
  /** Called once, after the last action. */
  finish(state: BatchState): void;
}
