/**
 * A final event as its settled entry, apart from the engine so a web page's `batchState` takes it
 * without the engine.
 *
 * @module
 */
import type { ToolResult } from '../lib/contract.js';
import type { ExecutionErrorEvent, ExecutionResultEvent, SettledResult } from './job.js';

/**
 * A final event as its settled entry: `{ result }` or `{ error }`, with the `note` and
 * `editedArgs` a person's approval added (see `Approval`), so that `toOutputItems` tells the model.
 */
export function settledOf(event: ExecutionResultEvent | ExecutionErrorEvent): SettledResult {
  const entry: { result?: ToolResult; error?: Error; note?: string; editedArgs?: string } =
    event.error === undefined ? { result: event.result } : { error: event.error };
  if (event.note !== undefined) entry.note = event.note;
  if (event.editedArgs !== undefined) entry.editedArgs = event.editedArgs;
  return entry as SettledResult;
}
