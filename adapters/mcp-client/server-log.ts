/**
 * A server's log messages (MCP's `notifications/message`), as the application receives them.
 *
 * @module
 */
import type { LoggingMessageNotification } from '@modelcontextprotocol/client';

/** One log message from the server. */
export interface McpLogMessage {
  /** Its severity, as MCP names it (`debug` ... `emergency`). */
  level: LoggingMessageNotification['params']['level'];
  /** The server's name for the logger, when it gave one. */
  logger?: string;
  /** The data as the server sent it. */
  data: unknown;
  /** The data as one line of text: a string as it is, anything else as JSON. */
  text: string;
  /** The local name of the tool whose call received it as progress; undefined when none did. */
  tool?: string;
}

/** A log message's data as text: a string as it is, anything else as JSON (or its String). */
export function logText(data: unknown): string {
  if (typeof data === 'string') return data;
  try {
    return JSON.stringify(data) ?? String(data);
  } catch {
    return String(data);
  }
}

/** The message as the application gets it. */
export function logMessage(
  params: LoggingMessageNotification['params'],
  tool: string | undefined,
): McpLogMessage {
  const message: McpLogMessage = {
    level: params.level,
    data: params.data,
    text: logText(params.data),
  };
  if (params.logger !== undefined) message.logger = params.logger;
  if (tool !== undefined) message.tool = tool;
  return message;
}
