/**
 * The server side of scenario 6, run in a child process of its own so that it has a core to itself
 * and the load generator's work is not counted against it:
 *
 *   node --import tsx bench/http-server.ts adapter   # serveHttp + createMcpServer(exampleTools)
 *   node --import tsx bench/http-server.ts sdk       # McpServer + StreamableHTTPServerTransport
 *   node --import tsx bench/http-server.ts sdk-modern  # McpServer behind createMcpHandler (2026-07-28)
 *
 * The SDK's servers are its v2 line (`@modelcontextprotocol/server`), which our server runs on.
 *
 * Prints `READY <url>` once listening; exits when its stdin closes (its parent went away).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport,
  toNodeHandler,
} from '@modelcontextprotocol/node';
import { createMcpHandler, isInitializeRequest, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { createMcpServer, serveHttp } from '../adapters/mcp-server/index.js';
import { exampleTools, TINY_PNG } from '../examples/mcp-tools.js';

const INFO = { name: 'agenttool-example', version: '0.1.0' };

/** The example tools registered the SDK's way, with the same schemas and the same functions. */
function sdkExampleServer(): McpServer {
  const server = new McpServer(INFO);
  server.registerTool(
    'upper',
    {
      title: 'Upper case',
      description: 'Return the text in upper case.',
      inputSchema: z.object({ text: z.string().describe('The text to convert') }),
      annotations: { title: 'Upper case', readOnlyHint: true, idempotentHint: true },
    },
    ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Add two numbers.',
      inputSchema: z.object({
        a: z.number().describe('The first number'),
        b: z.number().describe('The second number'),
      }),
      annotations: { readOnlyHint: true },
    },
    ({ a, b }) => ({ content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }] }),
  );
  server.registerTool(
    'tiny_image',
    {
      description: 'Return a tiny PNG image.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => ({ content: [{ type: 'image', data: TINY_PNG, mimeType: 'image/png' }] }),
  );
  return server;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (err) {
        reject(err);
      }
    });
    req.on('error', reject);
  });
}

/** The SDK's documented pattern: one transport and one McpServer per session, kept in a map. */
function sdkHttpServer(): Server {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return createServer((req, res) => {
    void (async () => {
      const header = req.headers['mcp-session-id'];
      let transport = typeof header === 'string' ? sessions.get(header) : undefined;
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      if (transport === undefined) {
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
          res.writeHead(400).end();
          return;
        }
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (id) => {
            sessions.set(id, created);
          },
        });
        created.onclose = () => {
          if (created.sessionId !== undefined) sessions.delete(created.sessionId);
        };
        await sdkExampleServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
}

const mode = process.argv[2];
let url: string;
if (mode === 'adapter') {
  const served = await serveHttp({ factory: () => createMcpServer(INFO, exampleTools) });
  url = served.url;
} else if (mode === 'sdk') {
  const server = sdkHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
} else if (mode === 'sdk-modern') {
  // The SDK's entry for MCP 2026-07-28: each request answered by a server of its own.
  const handler = toNodeHandler(createMcpHandler(() => sdkExampleServer()));
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
} else {
  throw new Error('usage: http-server.ts adapter|sdk|sdk-modern');
}
process.stdout.write(`READY ${url}\n`);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
