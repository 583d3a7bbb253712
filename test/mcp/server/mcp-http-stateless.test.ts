import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Observable } from 'rxjs';
import { z } from 'zod';
import {
  createMcpServer,
  serveHttp,
  type McpHttpServer,
} from '../../../adapters/mcp-server/index.js';
import { rawTool, tool, type ToolEvent } from '../../../index.js';
import { runCli } from '../../support/cli.js';
import { whoAmI } from '../../support/tools.js';
import { postCall } from '../../support/post-call.js';
import { scaled } from '../../support/time.js';

const steps = tool({
  name: 'steps',
  description: 'Reports three progress steps, then answers.',
  parameters: z.object({}),
  async *execute() {
    for (let i = 1; i <= 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      yield { progress: i, total: 3, message: `step ${i}` };
    }
    return 'done';
  },
});

let aborted: (() => void) | undefined;
const hang = rawTool({
  name: 'hang',
  description: 'Runs until cancelled.',
  execute: (_call, context) =>
    new Observable<ToolEvent>(() => {
      context.signal.addEventListener('abort', () => aborted?.());
    }),
});

/** Asks the client a question and answers with what it said. */
const ask = rawTool({
  name: 'ask',
  description: 'Asks the client a question.',
  execute: (_call, context) =>
    new Observable<ToolEvent>((subscriber) => {
      context
        .elicit({
          message: 'Go on?',
          schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
        })
        .then((answer) => {
          subscriber.next({ final: true, result: { output: JSON.stringify(answer) } });
          subscriber.complete();
        });
    }),
});

function textOf(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0]!.text;
}

describe('serveHttp stateless: every request on its own, for load balancers', function () {
  this.timeout(scaled(15_000));
  let http: McpHttpServer;
  const clients: Client[] = [];
  const connect = async (): Promise<{
    client: Client;
    transport: StreamableHTTPClientTransport;
  }> => {
    const client = new Client({ name: 'stateless-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(http.endpoint);
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  };

  before(async () => {
    http = await serveHttp({
      stateless: true,
      factory: () =>
        createMcpServer({ name: 'stateless', version: '1.0.0' }, [whoAmI, steps, hang, ask]),
    });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  after(() => http.close());

  it('mints no session id and keeps no session open', async () => {
    const { client, transport } = await connect();
    expect(transport.sessionId).to.equal(undefined);
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).to.deep.equal(['who_am_i', 'steps', 'hang', 'ask']);
    expect(http.sessions).to.equal(0);
  });

  it('gives calls no context.session', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'who_am_i', arguments: {} });
    expect(JSON.parse(textOf(result))).to.deep.equal({ session: null });
  });

  it('answers a call that no initialize preceded on that instance, as a balancer delivers it', async () => {
    const res = await postCall(http.url, 'who_am_i', {}, { id: 7 });
    expect(res.status).to.equal(200);
    expect(res.headers.get('mcp-session-id')).to.equal(null);
    const text = await res.text();
    expect(text).to.include('"id":7').and.include('session');
  });

  it('streams progress in the call’s own response, in order, before the result', async () => {
    const { client } = await connect();
    const seen: string[] = [];
    const result = await client.callTool({ name: 'steps', arguments: {} }, undefined, {
      onprogress: (p) => seen.push(`${p.progress}/${p.total} ${p.message}`),
    });
    expect(seen).to.deep.equal(['1/3 step 1', '2/3 step 2', '3/3 step 3']);
    expect(textOf(result)).to.equal('done');
  });

  it('serves many calls at once from one client', async () => {
    const { client } = await connect();
    const results = await Promise.all(
      Array.from({ length: 40 }, () => client.callTool({ name: 'steps', arguments: {} })),
    );
    expect(results.map(textOf)).to.deep.equal(Array(40).fill('done'));
  });

  it('cancels a call whose client drops its request', async () => {
    const { client } = await connect();
    const abortedNow = new Promise<void>((resolve) => (aborted = resolve));
    const call = client.callTool({ name: 'hang', arguments: {} }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Closing the transport aborts its open requests: the server sees the connection go.
    await client.close();
    await abortedNow;
    await call;
  });

  it('declines a tool’s question at once, even to a client that answers questions: no request can reach it mid-call', async () => {
    const client = new Client(
      { name: 'stateless-test', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked++;
      return { action: 'accept', content: { ok: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(http.endpoint));
    clients.push(client);
    const result = await client.callTool({ name: 'ask', arguments: {} });
    expect(JSON.parse(textOf(result))).to.deep.equal({ action: 'decline' });
    expect(asked).to.equal(0);
  });

  it('answers GET and DELETE 405: there is no session stream to open or end', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(http.url, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).to.equal(405);
      expect(((await res.json()) as { error: { message: string } }).error.message).to.match(
        /stateless/,
      );
    }
  });
});

describe('agenttool serve --stateless', () => {
  it('applies to --http only', async () => {
    const result = await runCli(['serve', '--stateless']);
    expect(result.status).to.equal(2);
    expect(result.stderr).to.include('--stateless applies to --http only');
  });
});
