import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ElicitRequestSchema,
  type ElicitRequest as McpElicitRequest,
  type ElicitResult as McpElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { createMcpServer } from '../../../adapters/mcp-server/index.js';
import { tool, type ElicitRequest, type ElicitResult } from '../../../index.js';

const question: ElicitRequest = {
  message: 'Deploy to which environment?',
  schema: {
    type: 'object',
    properties: {
      env: { type: 'string', enum: ['staging', 'prod'], default: 'staging' },
      force: { type: 'boolean', title: 'Force', default: false },
    },
    required: ['env'],
  },
};

/** What the tool's question resolved to, per call, in the order the calls asked. */
let answers: ElicitResult[] = [];
const deploy = tool({
  name: 'deploy',
  description: 'Asks where to deploy, then answers what it was told.',
  execute: async (_args, context) => {
    const answer = await context.elicit(question);
    answers.push(answer);
    return JSON.stringify(answer);
  },
});

type Handler = (
  request: McpElicitRequest,
  extra: { signal: AbortSignal; requestId: string | number },
) => McpElicitResult | Promise<McpElicitResult>;

/** A server of `deploy` and an SDK client connected to it, declaring elicitation when asked to. */
async function connect(handler: Handler | undefined, errors: Error[] = []) {
  const server = createMcpServer({ name: 'asks', version: '1.0.0' }, [deploy], {
    onError: (error) => errors.push(error),
  });
  const client = new Client(
    { name: 'person', version: '1.0.0' },
    { capabilities: handler === undefined ? {} : { elicitation: {} } },
  );
  if (handler !== undefined) client.setRequestHandler(ElicitRequestSchema, handler);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  return { client, clientSide: b, close: () => Promise.all([client.close(), server.close()]) };
}

function textOf(result: unknown): string {
  const content = (result as { content: { type: string; text?: string }[] }).content;
  return content.map((c) => c.text ?? '').join('');
}

describe('MCP server: a tool asks the client (elicitation/create)', () => {
  beforeEach(() => {
    answers = [];
  });

  it("sends the tool's message and schema as requestedSchema and gives the tool an accepted answer", async () => {
    const asked: McpElicitRequest['params'][] = [];
    const { client, close } = await connect((request) => {
      asked.push(request.params);
      return { action: 'accept', content: { env: 'prod', force: true } };
    });
    try {
      const result = await client.callTool({ name: 'deploy', arguments: {} });
      expect(asked).to.have.length(1);
      expect(asked[0]!.message).to.equal(question.message);
      expect((asked[0] as { requestedSchema: unknown }).requestedSchema).to.deep.equal(
        question.schema,
      );
      expect(answers).to.deep.equal([{ action: 'accept', content: { env: 'prod', force: true } }]);
      expect(JSON.parse(textOf(result))).to.deep.equal(answers[0]);
    } finally {
      await close();
    }
  });

  for (const action of ['decline', 'cancel'] as const)
    it(`gives the tool the client's ${action}`, async () => {
      const { client, close } = await connect(() => ({ action }));
      try {
        await client.callTool({ name: 'deploy', arguments: {} });
        expect(answers).to.deep.equal([{ action }]);
      } finally {
        await close();
      }
    });

  it('declines at once, asking nothing, when the client did not declare elicitation', async () => {
    const errors: Error[] = [];
    const { client, close } = await connect(undefined, errors);
    try {
      await client.callTool({ name: 'deploy', arguments: {} });
      // Asked, this client would have answered an error: cancel, and reported.
      expect(answers).to.deep.equal([{ action: 'decline' }]);
      expect(errors).to.deep.equal([]);
    } finally {
      await close();
    }
  });

  it("ends the question with cancel and reports it when the client's content breaks the schema", async () => {
    const errors: Error[] = [];
    const { client, close } = await connect(
      () => ({ action: 'accept', content: { env: 'moon' } }),
      errors,
    );
    try {
      await client.callTool({ name: 'deploy', arguments: {} });
      expect(answers).to.deep.equal([{ action: 'cancel' }]);
      expect(errors.map((e) => e.message).join('\n')).to.match(/^mcp server: elicitation: /);
    } finally {
      await close();
    }
  });

  it('cancels the pending elicitation request when the call is cancelled', async () => {
    let askedResolve!: (id: unknown) => void;
    const asked = new Promise<unknown>((resolve) => (askedResolve = resolve));
    const { client, close, clientSide } = await connect((_request, extra) => {
      askedResolve(extra.requestId);
      return new Promise<McpElicitResult>(() => undefined);
    });
    // What reaches the client after the handshake (the SDK's Client ignores a cancellation of
    // request id 0, so its handler's signal cannot tell).
    const received: unknown[] = [];
    const deliver = clientSide.onmessage!;
    let cancelledResolve!: () => void;
    const cancelled = new Promise<void>((resolve) => (cancelledResolve = resolve));
    clientSide.onmessage = (message, extra) => {
      received.push(message);
      if ((message as { method?: string }).method === 'notifications/cancelled') cancelledResolve();
      deliver(message, extra);
    };
    try {
      const controller = new AbortController();
      const call = client.callTool({ name: 'deploy', arguments: {} }, undefined, {
        signal: controller.signal,
      });
      call.catch(() => undefined);
      const id = await asked;
      controller.abort();
      await cancelled;
      expect(received.at(-1)).to.deep.include({ method: 'notifications/cancelled' });
      expect((received.at(-1) as { params: { requestId: unknown } }).params.requestId).to.equal(id);
      // The tool's question ended with cancel: its function went on to its return.
      for (let i = 0; i < 100 && answers.length === 0; i++)
        await new Promise((resolve) => setImmediate(resolve));
      expect(answers).to.deep.equal([{ action: 'cancel' }]);
    } finally {
      await close();
    }
  });
});
