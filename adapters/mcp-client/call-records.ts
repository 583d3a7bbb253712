/**
 * Writing the records a remote tool's call made through the calling job's recorder.
 *
 * @module
 */
import { RecordError } from '../../lib/errors.js';
import type { Recordable } from '../../lib/records.js';
import type { ToolContext } from '../../lib/contract.js';

/**
 * Writes `records` through `context.record`, one after another, in the order they came. A record
 * `context.record` refuses (a RecordError: past the call's caps, a namespace the grammar refuses,
 * text that is not JSON) is dropped, and the call goes on: the records are the server's word,
 * and its result stands. Resolves with how many were dropped and the first reason; any other
 * error (the recorder's) rejects.
 */
export async function recordInOrder(
  records: readonly Recordable[],
  context: ToolContext,
): Promise<{ dropped: number; reason: string }> {
  let dropped = 0;
  let reason = '';
  for (let i = 0; i < records.length; i++) {
    try {
      await context.record(records[i]!);
    } catch (err) {
      if (!(err instanceof RecordError)) throw err;
      if (dropped === 0) reason = err.message;
      // Past the cap on records, so is every later one.
      if (err.limit === 'maxRecords') return { dropped: dropped + records.length - i, reason };
      dropped++;
    }
  }
  return { dropped, reason };
}
