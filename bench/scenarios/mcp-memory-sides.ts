/**
 * The two sides of scenario 5 (mcp-memory.ts): the servers (the SDK's and ours), the clients over
 * the SDK's in-memory linked transports, and the loops of calls each sample times.
 *
 * @module
 */
import { Client, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer, inputRequired } from '@modelcontextprotocol/server';
import { serveStdio as serveEras } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import type { McpRemote } from '../../adapters/mcp-client/index.js';
import type { createMcpServer } from '../../adapters/mcp-server/index.js';
import { TASKS_EXTENSION } from '../../adapters/mcp-shared/tasks-extension.js';
import { rawTool, tool, type Tool } from '../../index.js';
import { Observable } from 'rxjs';
import { CallContext } from '../../lib/context.js';
import type { ToolEvent } from '../../lib/contract.js';

export const INFO = { name: 'bench', version: '1.0.0' };
const ARGS = { text: 'hello' };

function echo(text: string): string {
  return text;
}

/**
 * The SDK's v2 client, over an in-memory pair whose server side is served by the SDK's stdio entry
 * (`serveStdio` with our transport), which picks the era from the client's opening: `modern`
 * negotiates 2026-07-28 (`server/discover`), otherwise 2025-11-25 (`initialize`).
 */
export async function v2ClientOf(
  factory: () => McpServer | ReturnType<typeof createMcpServer>,
  modern: boolean,
  answers = false,
): Promise<{ client: Client; close: () => Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveEras(factory, { transport: serverSide });
  const client = new Client(
    { name: 'bench-client', version: '1.0.0' },
    {
      ...(modern ? { versionNegotiation: { mode: 'auto' } } : {}),
      // What connectMcp declares (it answers a server's questions and polls its tasks): in
      // 2026-07-28 the capabilities travel, and are read, on every request.
      ...(answers
        ? {
            capabilities: {
              elicitation: { form: {} },
              extensions: { [TASKS_EXTENSION]: {} },
            } as ClientCapabilities,
          }
        : {}),
    },
  );
  await client.connect(clientSide);
  if ((client.getProtocolEra() === 'modern') !== modern)
    throw new Error('the era was not the one asked');
  return {
    client,
    close: async () => {
      await client.close();
      await handle.close();
    },
  };
}

export async function v2Calls(client: Client, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const result = await client.callTool({ name: 'echo', arguments: ARGS });
    if (result.isError === true) throw new Error('echo failed');
  }
}

/** The SDK's own server with the SDK's own registration. */
export function sdkServer(): McpServer {
  const server = new McpServer(INFO);
  server.registerTool(
    'echo',
    {
      description: 'Echo the text.',
      inputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: true },
    },
    ({ text }): CallToolResult => ({ content: [{ type: 'text', text: echo(text) }] }),
  );
  return server;
}

export const echoTool: Tool = tool({
  name: 'echo',
  description: 'Echo the text.',
  parameters: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true },
  execute: ({ text }) => echo(text),
});

export async function sdkClientOf(
  connect: (transport: InMemoryTransport) => Promise<void>,
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connect(serverSide);
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

export async function sdkCalls(client: Client, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const result = (await client.callTool({ name: 'echo', arguments: ARGS })) as CallToolResult;
    if (result.isError === true) throw new Error('echo failed');
  }
}

function ignoreProgress(): void {}

/** What our client asks of the SDK on every call: progress (so the timeout restarts) and a signal. */
export async function sdkCallsLikeOurs(client: Client, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const result = (await client.callTool(
      { name: 'echo', arguments: ARGS },
      {
        onprogress: ignoreProgress,
        resetTimeoutOnProgress: true,
        signal: new AbortController().signal,
      },
    )) as CallToolResult;
    if (result.isError === true) throw new Error('echo failed');
  }
}

/**
 * What asking for progress alone costs the SDK's server: a bare callTool whose request carries a
 * progress token, as every request of our client does (the server parses the `_meta` it is in).
 */
export async function sdkCallsWithToken(client: Client, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const params = { name: 'echo', arguments: ARGS, _meta: { progressToken: `token-${i}` } };
    const result = (await client.callTool(params)) as CallToolResult;
    if (result.isError === true) throw new Error('echo failed');
  }
}

/** One call through a Tool's execute, resolved at its final event. */
function callOnce(remoteTool: Tool, id: string): Promise<void> {
  const call = { id, args: '{"text":"hello"}' };
  return new Promise((resolve, reject) => {
    remoteTool.execute(call, new CallContext(call)).subscribe({
      next(event: ToolEvent) {
        if (event.final) resolve();
      },
      error: reject,
    });
  });
}

export async function remoteCalls(remote: McpRemote, count: number): Promise<void> {
  const remoteTool = remote.tools[0];
  for (let i = 0; i < count; i++) await callOnce(remoteTool, `call_${i}`);
}

const goSchema = () => ({
  type: 'object' as const,
  properties: { go: { type: 'boolean' as const } },
  required: ['go'],
});

/** A served tool that asks one question, then answers: agenttool holds the call for the answer. */
export const askTool: Tool = rawTool({
  name: 'ask',
  description: 'Asks, then answers.',
  execute: (_call, context) =>
    new Observable((subscriber) => {
      void context.elicit({ key: 'go', message: 'Go?', schema: goSchema() }).then((answer) => {
        subscriber.next({ final: true, result: { output: answer.action } });
        subscriber.complete();
      });
    }),
});

/** The same with the SDK's own server: the handler returns input_required, and runs again. */
export function sdkAskServer(): McpServer {
  const server = new McpServer(INFO);
  server.registerTool('ask', { description: 'Asks, then answers.' }, (ctx) => {
    const answer = ctx.mcpReq.inputResponses?.go as { action: string } | undefined;
    if (answer === undefined)
      return inputRequired({
        inputRequests: {
          go: inputRequired.elicit({ message: 'Go?', requestedSchema: goSchema() }),
        },
      });
    return { content: [{ type: 'text', text: answer.action }] };
  });
  return server;
}

/** The SDK's v2 client in 2026-07-28, answering every question `accept`. */
export async function askingClientOf(
  factory: () => McpServer | ReturnType<typeof createMcpServer>,
): Promise<{ client: Client; close: () => Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveEras(factory, { transport: serverSide });
  const client = new Client(
    { name: 'bench-client', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', () => ({
    action: 'accept',
    content: { go: true },
  }));
  await client.connect(clientSide);
  if (client.getProtocolEra() !== 'modern') throw new Error('the asking client did not go modern');
  return {
    client,
    close: async () => {
      await client.close();
      await handle.close();
    },
  };
}

export async function askCalls(client: Client, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const result = (await client.callTool({ name: 'ask', arguments: {} })) as CallToolResult;
    if ((result.content[0] as { text?: string } | undefined)?.text !== 'accept')
      throw new Error(`the question was not answered: ${JSON.stringify(result)}`);
  }
}
