/**
 * The job id of a fleet call (see {@link jobIdOf}).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { ToolCall } from '../../lib/contract.js';
import { idempotencyKeyOf } from '../../lib/replay.js';

/**
 * The job id of a call: derived from its batch (see `QueueToolsOptions.batchId`) and its
 * idempotency key (the call id, or the application's own key), the same wherever it is sent from.
 */
export function jobIdOf(call: ToolCall, batch = ''): string {
  const key = `${batch}\n${idempotencyKeyOf(call)}`;
  return `call-${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}
