/**
 * A proxy (`connectMcp` to an upstream, its tools served with `createMcpServer` and `serveHttp`)
 * changes nothing its client sees: each case asks the upstream directly and through the proxy,
 * and expects the same answer.
 */
import { expect } from 'chai';
import { Observable } from 'rxjs';
import { connectMcp, httpTransport, type McpRemote } from '../../adapters/mcp-client/index.js';
import {
  createMcpServer,
  serveHttp,
  type McpHttpServer,
  type McpServerOptions,
} from '../../adapters/mcp-server/index.js';
import { rawTool, type Tool, type ToolEvent } from '../../index.js';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { cliArgs, root, serveCli } from '../support/cli.js';
import { ASKABLE, ENVELOPE, postModern } from '../support/modern.js';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';

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

/** `plain`: answers at once. */
const plain = rawTool({
  name: 'plain',
  description: 'Answers at once.',
  execute: () => ({ output: 'plain' }),
});

/** An upstream serving `tools`, and a proxy of it; both closed by `close`. */
async function upstreamAndProxy(
  tools: Tool[],
  upstreamOptions: McpServerOptions = {},
): Promise<{
  upstream: McpHttpServer;
  proxy: McpHttpServer;
  remote: McpRemote;
  close(): Promise<void>;
}> {
  const upstream = await serveHttp({
    port: 0,
    factory: () => createMcpServer({ name: 'upstream', version: '1' }, tools, upstreamOptions),
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
      const keysFrom = async (url: string | URL) => {
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

describe('the proxy changes nothing: an upstream refusal', function () {
  this.timeout(20_000);

  for (const [who, meta] of [
    ['a client that declares nothing', ENVELOPE],
    ['a client that answers questions', ASKABLE],
  ] as const)
    it(`passes -32021 (a client capability missing) on as HTTP 400, its code and data the same, to ${who}`, async () => {
      const peers = await upstreamAndProxy([plain], {
        requiredCapabilities: { plain: { sampling: {} } },
      });
      try {
        const refusal = async (url: string | URL) => {
          const { status, body } = await postModern(
            url,
            'tools/call',
            { name: 'plain', arguments: {} },
            {},
            meta,
          );
          return { status, error: body.error as Json | undefined };
        };
        const direct = await refusal(peers.upstream.url);
        expect(direct.status).to.equal(400);
        expect(direct.error).to.deep.include({
          code: -32021,
          data: { requiredCapabilities: { sampling: {} } },
        });
        // Before, the proxy answered HTTP 200 with an isError result.
        expect(await refusal(peers.proxy.url)).to.deep.equal(direct);
      } finally {
        await peers.close();
      }
    });
});

describe('the proxy changes nothing: agenttool serve --mcp-url', function () {
  this.timeout(60_000);

  it("passes the upstream's instructions on to its clients, in both eras", async () => {
    const upstream = await serveHttp({
      port: 0,
      factory: () =>
        createMcpServer({ name: 'upstream', version: '1' }, [plain], {
          instructions: 'Call plain before anything else.',
        }),
    });
    const served = serveCli(['--mcp-url', upstream.url]);
    try {
      const proxy = await served.url;
      for (const mode of ['legacy', 'auto'] as const) {
        const instructionsAt = async (url: URL) => {
          const client = new ModernClient(
            { name: 'reader', version: '1' },
            { versionNegotiation: { mode } },
          );
          await client.connect(new StreamableHTTPClientTransport(url));
          try {
            return client.getInstructions();
          } finally {
            await client.close();
          }
        };
        expect(await instructionsAt(upstream.endpoint), mode).to.equal(
          'Call plain before anything else.',
        );
        // Before, agenttool serve gave none.
        expect(await instructionsAt(proxy), mode).to.equal('Call plain before anything else.');
      }
    } finally {
      served.child.kill('SIGTERM');
      await served.done;
      await upstream.close();
    }
  });
});

describe('the proxy changes nothing: agenttool serve --mcp, log messages of no call', function () {
  this.timeout(60_000);
  const upstream = `${process.execPath} --import tsx ${resolve(root, 'test/fixtures/logging-server.ts')} stdio`;

  /** The log messages `client` gets up to the upstream's last (`info`), at `level` if given. */
  async function logsOf(transport: StdioClientTransport, level?: 'info'): Promise<unknown[]> {
    const client = new Client({ name: 'listener', version: '1' });
    const logs: unknown[] = [];
    let last!: () => void;
    const lastArrived = new Promise<void>((resolve) => (last = resolve));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
      if (n.params.level === 'info') last();
    });
    await client.connect(transport);
    try {
      if (level !== undefined) await client.setLoggingLevel(level);
      await client.callTool({ name: 'announce', arguments: {} });
      await lastArrived;
      return logs;
    } finally {
      await client.close();
    }
  }

  for (const level of [undefined, 'info'] as const)
    it(`passes the upstream's own log messages on as its own${level === undefined ? '' : `, at the level asked (${level})`}`, async () => {
      const [command, ...args] = upstream.split(' ');
      const direct = await logsOf(
        new StdioClientTransport({ command: command!, args, stderr: 'ignore' }),
        level,
      );
      // Before, they went to agenttool's stderr and the client got none.
      const proxied = await logsOf(
        new StdioClientTransport({
          command: process.execPath,
          args: [...cliArgs(), 'serve', '--mcp', upstream],
          cwd: root,
          stderr: 'ignore',
        }),
        level,
      );
      expect(direct.length).to.equal(level === undefined ? 2 : 1);
      expect(proxied).to.deep.equal(direct);
    });
});
