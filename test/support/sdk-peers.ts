/** What tests of `connectMcp` against SDK-built servers share. */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpRemote } from '../../adapters/mcp-client/index.js';
import type { Tool } from '../../index.js';

/** An SDK `server` over Streamable HTTP (one session) on a loopback port. */
export async function overHttp(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
  const http = createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await server.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** The remote tool named `name`; throws when the server lists none. */
export function only(remote: McpRemote, name: string): Tool {
  const found = remote.tools.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

/** A gate a test opens: `open` resolves once `release` is called. */
export function gate(): { open: Promise<void>; release(): void } {
  let release!: () => void;
  const open = new Promise<void>((resolve) => (release = resolve));
  return { open, release };
}
