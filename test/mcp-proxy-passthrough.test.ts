/**
 * A proxy (`connectMcp` to an upstream, its tools served with `createMcpServer` and `serveHttp`)
 * changes nothing its client sees: each case asks the upstream directly and through the proxy,
 * and expects the same answer.
 */
import { expect } from 'chai';
import { Observable } from 'rxjs';
import { connectMcp, httpTransport, type McpRemote } from '../adapters/mcp-client/index.js';
import { createMcpServer, serveHttp, type McpHttpServer } from '../adapters/mcp-server/index.js';
import { rawTool, type Tool, type ToolEvent } from '../index.js';
import { ASKABLE, postModern } from './support/modern.js';

type Json = Record<string, unknown>;

/** `ask`: asks the person their name under the key `user_name`, then says hello. */
const ask = rawTool({
  name: 'ask',
  description: 'Asks for a name.',
  execute: (_call, context) =>
    new Observable<ToolEvent>((subscriber) => {
      void context
        .elicit({
          key: 'user_name',
          message: 'Your name?',
          schema: { type: 'object', properties: { name: { type: 'string' } } },
        })
        .then((answer) => {
          subscriber.next({ final: true, result: { output: `hello ${JSON.stringify(answer)}` } });
          subscriber.complete();
        });
    }),
});

/** An upstream serving `tools`, and a proxy of it; both closed by `close`. */
async function upstreamAndProxy(tools: Tool[]): Promise<{
  upstream: McpHttpServer;
  proxy: McpHttpServer;
  remote: McpRemote;
  close(): Promise<void>;
}> {
  const upstream = await serveHttp({
    port: 0,
    factory: () => createMcpServer({ name: 'upstream', version: '1' }, tools),
  });
  const remote = await connectMcp(httpTransport(upstream.url));
  const proxy = await serveHttp({
    port: 0,
    factory: () => createMcpServer({ name: 'proxy', version: '1' }, remote.tools),
  });
  return {
    upstream,
    proxy,
    remote,
    close: async () => {
      await proxy.close();
      await remote.close();
      await upstream.close();
    },
  };
}

describe('the proxy changes nothing: MCP 2026-07-28 questions', function () {
  this.timeout(20_000);

  it('keeps the key the upstream gave its question (inputRequests)', async () => {
    const peers = await upstreamAndProxy([ask]);
    try {
      const keysFrom = async (url: URL) => {
        const { body } = await postModern(
          url,
          'tools/call',
          { name: 'ask', arguments: {} },
          {},
          ASKABLE,
        );
        const result = body.result as Json;
        expect(result.resultType, JSON.stringify(body)).to.equal('input_required');
        return Object.keys(result.inputRequests as Json);
      };
      expect(await keysFrom(peers.upstream.url)).to.deep.equal(['user_name']);
      // Before, the proxy named it after its own count (`q1`).
      expect(await keysFrom(peers.proxy.url)).to.deep.equal(['user_name']);
    } finally {
      await peers.close();
    }
  });
});
