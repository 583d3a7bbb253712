/**
 * A server's own log messages (`notifications/message` that belong to no call), sent to every
 * client connected to the servers that `createMcpServer` made with them: how a proxy passes on
 * what its upstream servers log outside a call.
 *
 * @module
 */
import type { LoggingMessageNotification, Server } from '@modelcontextprotocol/server';
import { passesAskedLevel } from './call-log.js';

/**
 * The log messages of a server's own, for the clients of every server made with it
 * (`createMcpServer(info, tools, { logs })`, one server per session or one for stdio).
 *
 * A message goes to each client of a 2025-11-25 session, at or above the level that session asked
 * for with `logging/setLevel` (every level before it asks), as it was given. A 2026-07-28 client
 * gets none: that era sends a log message only on the stream of the request it belongs to.
 */
export class ServerLogs {
  /** The servers made with these logs; a server nobody holds is dropped. */
  private readonly servers = new Set<WeakRef<Server>>();

  /** Sends `params` to every connected client; returns how many clients were connected. */
  send(params: LoggingMessageNotification['params']): number {
    let connected = 0;
    for (const ref of this.servers) {
      const server = ref.deref();
      if (server === undefined) {
        this.servers.delete(ref);
        continue;
      }
      const transport = server.transport;
      const version = server.getNegotiatedProtocolVersion();
      if (transport === undefined || version === undefined || version >= '2026-07-28') continue;
      connected += 1;
      if (!passesAskedLevel(server, transport.sessionId, params.level)) continue;
      // A client that goes away meanwhile misses the message, as it would the upstream's.
      server.notification({ method: 'notifications/message', params }).catch(() => undefined);
    }
    return connected;
  }

  /** Adds `server`, made by `createMcpServer` with these logs. */
  add(server: Server): void {
    this.servers.add(new WeakRef(server));
  }
}
