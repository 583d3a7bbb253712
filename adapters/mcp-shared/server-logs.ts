/**
 * A server's log message (`notifications/message`) as a remote call's progress event: marked so
 * that a proxy (`createMcpServer` over remote tools) sends it on to its own client as a log
 * message, not as progress.
 *
 * @module
 */
import type { LoggingMessageNotification } from '@modelcontextprotocol/client';

/** The details objects of log events, made by `connectMcp` (see {@link logDetails}). */
const logs = new WeakSet<object>();

/** What a log message's progress event carries in `details`: `{ level, data, logger? }`, marked. */
export function logDetails(params: LoggingMessageNotification['params']): Record<string, unknown> {
  const details: Record<string, unknown> = { level: params.level, data: params.data };
  if (params.logger !== undefined) details.logger = params.logger;
  logs.add(details);
  return details;
}

/** The log message an event's `details` carries, when `connectMcp` made it from one. */
export function logOf(details: unknown): LoggingMessageNotification['params'] | undefined {
  if (typeof details !== 'object' || details === null || !logs.has(details)) return undefined;
  return details as LoggingMessageNotification['params'];
}
