/**
 * What connectMcp and McpRemote ask of a transport and its session: whether a value is a
 * transport (and what was given instead), whether it is stdio, ending the session the server
 * keeps, and which MCP tasks the server serves.
 *
 * @module
 */
import type { Client, Transport } from '@modelcontextprotocol/client';
import { visible } from '../../lib/visible.js';
import { TASKS_EXTENSION, type TaskGeneration } from './remote-task.js';

/**
 * Ends a session the server keeps (Streamable HTTP's `mcp-session-id`) before the transport closes,
 * so the server frees it now rather than when it has been idle for long enough. A transport
 * without sessions has nothing to end; a server that is already gone is not waited for.
 */
export function endSession(transport: Transport): Promise<void> {
  const sessions = transport as Transport & { terminateSession?: () => Promise<void> };
  if (typeof sessions.terminateSession !== 'function' || transport.sessionId === undefined)
    return Promise.resolve();
  return sessions.terminateSession().catch(() => undefined);
}

export function isTransport(value: unknown): value is Transport {
  const transport = value as Partial<Transport> | null | undefined;
  return (
    typeof transport === 'object' &&
    transport !== null &&
    typeof transport.start === 'function' &&
    typeof transport.send === 'function' &&
    typeof transport.close === 'function'
  );
}

/** What was given instead of a transport, in a few words. */
export function given(value: unknown): string {
  if (value instanceof URL) return `the URL ${visible(value.href.slice(0, 200))}`;
  if (typeof value === 'string')
    return `the string ${visible(JSON.stringify(value.slice(0, 200)))}`;
  if (value === null || typeof value !== 'object') return String(value);
  return 'an object without start, send and close';
}

/** Whether `transport` talks to a child process over stdio (the SDK's stdio transport has a pid). */
export function isStdio(transport: Transport): boolean {
  return 'pid' in transport;
}

/**
 * Which MCP tasks `client`'s server serves it: the extension in MCP 2026-07-28 (`v2`), or, before
 * it, 2025-11-25's tasks of tools/call (`v1`); undefined when none.
 */
export function taskGenerationOf(client: Client): TaskGeneration | undefined {
  const capabilities = client.getServerCapabilities() as
    | {
        extensions?: Record<string, unknown>;
        tasks?: { requests?: { tools?: { call?: unknown } } };
      }
    | undefined;
  if (client.getProtocolEra() === 'modern')
    return capabilities?.extensions?.[TASKS_EXTENSION] === undefined ? undefined : 'v2';
  return capabilities?.tasks?.requests?.tools?.call === undefined ? undefined : 'v1';
}
