/**
 * Every failure of a remote call carries a `code` an application can switch on (McpErrorCode),
 * with the JSON-RPC code or the HTTP status where there is one: the message may change, the code
 * does not.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { createServer } from 'node:http';
import { lastValueFrom, toArray } from 'rxjs';
import {
  connectMcp,
  httpTransport,
  McpCallError,
  RemoteToolError,
  type McpRemote,
} from '../../adapters/mcp-client/index.js';
import { executeBatch } from '../../index.js';
import { scaled } from '../support/time.js';

/** A server whose tools fail each in its own way. */
async function failing(): Promise<{ remote: McpRemote; close: () => Promise<void> }> {
  const server = new Server({ name: 'failing', version: '1' }, { capabilities: { tools: {} } });
  const tools = ['refuse', 'broken', 'fail', 'hang'];
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((name) => ({ name, inputSchema: { type: 'object' as const } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    switch (request.params.name) {
      case 'refuse':
        throw new McpError(-32602, 'no such account');
      case 'broken':
        return { content: 'not a list' } as never;
      case 'fail':
        return { content: [{ type: 'text', text: 'disk full' }], isError: true };
      default:
        return new Promise(() => undefined);
    }
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const remote = await connectMcp(b, { timeout: 200, versionNegotiation: { mode: 'legacy' } });
  return { remote, close: () => remote.close() };
}

async function errorOf(remote: McpRemote, name: string): Promise<Error> {
  const tool = remote.tools.find((t) => t.name === name)!;
  const events = await lastValueFrom(
    executeBatch([{ tool, call: { id: name, args: '{}' } }]).pipe(toArray()),
  );
  return events.at(-1)!.error!;
}

describe('MCP call errors carry a code to switch on', function () {
  this.timeout(scaled(10_000));

  it('protocol (with the JSON-RPC code), invalid_result, remote_tool, timeout, closed', async () => {
    const { remote, close } = await failing();
    try {
      const refused = (await errorOf(remote, 'refuse')) as McpCallError;
      expect(refused).to.be.instanceOf(McpCallError);
      expect([refused.code, refused.rpcCode]).to.deep.equal(['protocol', -32602]);
      const broken = (await errorOf(remote, 'broken')) as McpCallError;
      expect(broken.code, broken.message).to.equal('invalid_result');
      const failed = (await errorOf(remote, 'fail')) as RemoteToolError;
      expect(failed).to.be.instanceOf(RemoteToolError);
      expect(failed.code).to.equal('remote_tool');
      expect(((await errorOf(remote, 'hang')) as McpCallError).code).to.equal('timeout');
    } finally {
      await close();
    }
    expect(((await errorOf(remote, 'hang')) as McpCallError).code).to.equal('closed');
  });

  it('connect when the connection never opens (a 503 still busy after the retries is http, status 503: test/mcp/client/mcp-client-busy.test.ts)', async () => {
    const http = createServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end('forbidden');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as { port: number };
    try {
      const error = await connectMcp(httpTransport(`http://127.0.0.1:${port}/mcp`)).then(
        () => undefined,
        (err: unknown) => err as McpCallError,
      );
      expect(error).to.be.instanceOf(McpCallError);
      expect(error!.code).to.equal('connect');
      expect(error!.message).to.match(/^mcp: connect: /);
    } finally {
      http.close();
    }
  });
});
