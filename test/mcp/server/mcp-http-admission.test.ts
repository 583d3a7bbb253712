import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Observable } from 'rxjs';
import {
  createMcpServer,
  serveHttp,
  type McpHttpServer,
} from '../../../adapters/mcp-server/index.js';
import { rawTool, textResult, type ToolEvent } from '../../../index.js';
import { postCall } from '../../support/post-call.js';
import { callRequest, openSession, post, type RawReply } from '../../support/raw-http.js';
import { scaled } from '../../support/time.js';

/** Calls of `gate` run until the test opens them, in the order they started. */
const gates: { open: () => void; aborted: boolean }[] = [];
const gate = rawTool({
  name: 'gate',
  description: 'Runs until the test lets it end.',
  execute: (_call, context) =>
    new Observable<ToolEvent>((subscriber) => {
      const entry = {
        open: () => {
          subscriber.next({ final: true, result: textResult('passed') });
          subscriber.complete();
        },
        aborted: false,
      };
      context.signal.addEventListener('abort', () => (entry.aborted = true));
      gates.push(entry);
    }),
});

const INFO = { name: 'admission', version: '1.0.0' };
const until = async (check: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};

/** The JSON-RPC messages of an SSE body. */
function sseMessages(body: string): { id?: unknown; result?: unknown; error?: unknown }[] {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { id?: unknown; result?: unknown });
}

/** One tools/call POSTed on its own (the server is stateless): its response, unread. */
function call(http: McpHttpServer, init: RequestInit = {}): Promise<Response> {
  return postCall(http.url, 'gate', {}, { init });
}

async function probe(http: McpHttpServer, path: string, init: RequestInit = {}) {
  const res = await fetch(new URL(path, http.url), init);
  return { status: res.status, body: await res.text() };
}

describe('serveHttp admission control: maxConcurrentCalls, health, drain', function () {
  this.timeout(scaled(15_000));
  let http: McpHttpServer | undefined;
  const serve = async (options: Record<string, unknown>): Promise<McpHttpServer> =>
    (http = await serveHttp({
      stateless: true,
      factory: () => createMcpServer(INFO, [gate]),
      ...options,
    }));
  afterEach(async () => {
    for (const g of gates.splice(0)) g.open();
    await http?.close();
    http = undefined;
  });

  it('answers a call past maxConcurrentCalls busy at once: 503, Retry-After, a JSON-RPC error', async () => {
    const server = await serve({ maxConcurrentCalls: 2 });
    const running = [call(server), call(server)];
    await until(() => gates.length === 2, 'two calls running');
    const busy = await call(server);
    expect(busy.status).to.equal(503);
    expect(busy.headers.get('retry-after')).to.equal('1');
    const body = (await busy.json()) as { id: number; error: { code: number; message: string } };
    expect(body.error.message).to.equal('Server busy: 2 calls running; retry later');
    expect(body.id).to.be.a('number');
    expect(gates).to.have.length(2);
    gates[0]!.open();
    expect((await running[0]!).status).to.equal(200);
    await until(() => server.activeCalls === 1, 'a slot freed');
    const next = call(server);
    await until(() => gates.length === 3, 'the next call running');
    gates[1]!.open();
    gates[2]!.open();
    expect(await (await next).text()).to.include('passed');
    await running[1];
  });

  it('lets up to maxQueuedCalls wait for a slot, first come first served', async () => {
    const server = await serve({ maxConcurrentCalls: 1, maxQueuedCalls: 1 });
    const first = call(server);
    await until(() => gates.length === 1, 'the first call running');
    const second = call(server);
    await until(() => server.activeCalls === 1 && gates.length === 1, 'settled');
    // The queue's one place is taken once the second POST has arrived.
    await new Promise((r) => setTimeout(r, 100));
    const third = await call(server);
    expect(third.status).to.equal(503);
    expect(((await third.json()) as { error: { message: string } }).error.message).to.equal(
      'Server busy: 1 calls running and 1 waiting; retry later',
    );
    expect(gates).to.have.length(1);
    gates[0]!.open();
    await until(() => gates.length === 2, 'the waiting call running');
    gates[1]!.open();
    expect(await (await first).text()).to.include('passed');
    expect(await (await second).text()).to.include('passed');
  });

  it('gives up the place of a waiting call whose client leaves', async () => {
    const server = await serve({ maxConcurrentCalls: 1, maxQueuedCalls: 1 });
    const first = call(server);
    await until(() => gates.length === 1, 'the first call running');
    const controller = new AbortController();
    const leaving = call(server, { signal: controller.signal }).catch(() => 'left');
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    expect(await leaving).to.equal('left');
    await new Promise((r) => setTimeout(r, 50));
    // Its place is free again: another call waits rather than being refused.
    const waiting = call(server);
    await new Promise((r) => setTimeout(r, 100));
    gates[0]!.open();
    await until(() => gates.length === 2, 'the waiting call running');
    gates[1]!.open();
    expect((await waiting).status).to.equal(200);
    await first;
  });

  it('holds the calls of a session too, and the SDK client sees the busy error', async () => {
    const server = await serve({ stateless: false, maxConcurrentCalls: 1 });
    const client = new Client({ name: 'sdk', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(server.endpoint));
    try {
      const running = client.callTool({ name: 'gate', arguments: {} });
      await until(() => gates.length === 1, 'a call running');
      // initialize and tools/list are never held.
      expect((await client.listTools()).tools).to.have.length(1);
      const refused = await client.callTool({ name: 'gate', arguments: {} }).catch((e: Error) => e);
      expect(String(refused), String(refused)).to.match(/Server busy/);
      gates[0]!.open();
      await running;
    } finally {
      await client.close();
    }
  });

  it('answers /healthz and /readyz without the token, saying nothing else', async () => {
    const server = await serve({ token: 'secret-token', maxConcurrentCalls: 1 });
    expect(await probe(server, '/healthz')).to.deep.equal({ status: 200, body: 'ok\n' });
    expect(await probe(server, '/readyz')).to.deep.equal({ status: 200, body: 'ready\n' });
    expect((await probe(server, '/readyz', { method: 'HEAD' })).status).to.equal(200);
    // Everything else still needs the token.
    expect((await call(server)).status).to.equal(401);
    const running = call(server, {
      headers: {
        authorization: 'Bearer secret-token',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
    });
    await until(() => gates.length === 1, 'a call running');
    expect(await probe(server, '/readyz')).to.deep.equal({ status: 503, body: 'busy\n' });
    expect(await probe(server, '/healthz')).to.deep.equal({ status: 200, body: 'ok\n' });
    gates[0]!.open();
    await running;
    await until(() => server.ready, 'ready again');
    expect((await probe(server, '/readyz')).status).to.equal(200);
  });

  it('drains: refuses new calls with 503 while running ones finish, then stops', async () => {
    const server = await serve({});
    const running = call(server);
    await until(() => gates.length === 1, 'a call running');
    let drained = false;
    const draining = server.drain(5_000).then(() => (drained = true));
    expect(await probe(server, '/readyz')).to.deep.equal({ status: 503, body: 'draining\n' });
    const refused = await call(server);
    expect(refused.status).to.equal(503);
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(((await refused.json()) as { error: { message: string } }).error.message).to.match(
      /shutting down/,
    );
    expect(drained).to.equal(false);
    gates[0]!.open();
    expect(await (await running).text()).to.include('passed');
    await draining;
    expect(gates[0]!.aborted).to.equal(false);
    const after = await call(server).catch((e: Error) => e);
    expect(after).to.be.instanceOf(Error);
    http = undefined;
  });

  it('drains: cancels what still runs when the grace period ends, and answers it so', async () => {
    const server = await serve({ drainGrace: 200 });
    const running = call(server).then((r) => r.text().catch(() => ''));
    await until(() => gates.length === 1, 'a call running');
    const started = Date.now();
    await server.drain();
    expect(Date.now() - started).to.be.within(150, 3_000);
    const answer = sseMessages(await running);
    expect(answer).to.have.length(1);
    expect(answer[0]!.result).to.deep.equal({
      content: [{ type: 'text', text: 'Error: server shutting down: call "gate" was cancelled' }],
      isError: true,
    });
    expect(gates[0]!.aborted).to.equal(true);
    http = undefined;
  });

  it('drains a session: the SDK client gets the shutdown answer of each call still running', async () => {
    const server = await serve({ stateless: false });
    const client = new Client({ name: 'sdk', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(server.endpoint));
    try {
      const running = [
        client.callTool({ name: 'gate', arguments: {} }),
        client.callTool({ name: 'gate', arguments: {} }),
      ];
      await until(() => gates.length === 2, 'two calls running');
      await server.drain(100);
      for (const result of await Promise.all(running))
        expect(result).to.deep.equal({
          content: [
            { type: 'text', text: 'Error: server shutting down: call "gate" was cancelled' },
          ],
          isError: true,
        });
      expect(gates.map((g) => g.aborted)).to.deep.equal([true, true]);
    } finally {
      await client.close();
      http = undefined;
    }
  });

  describe('a JSON-RPC batch of calls', () => {
    let running = 0;
    let most = 0;
    /** Runs 20 ms, counting the calls running at once. */
    const pause = rawTool({
      name: 'pause',
      description: 'Runs 20 ms.',
      execute: () =>
        new Observable<ToolEvent>((subscriber) => {
          most = Math.max(most, ++running);
          const timer = setTimeout(() => {
            subscriber.next({ final: true, result: textResult('paused') });
            subscriber.complete();
          }, 20);
          return () => {
            running--;
            clearTimeout(timer);
          };
        }),
    });
    const batch = Array.from({ length: 40 }, (_, i) => callRequest(i + 1, 'pause'));
    /** The batch's answers, by id: the text of a result, or the message of an error. */
    const answersOf = (reply: RawReply): Map<unknown, string> =>
      new Map(
        reply.messages.map((m) => [
          m.id,
          m.error?.message ?? (m.result as { content: { text: string }[] }).content[0]!.text,
        ]),
      );
    beforeEach(() => {
      running = 0;
      most = 0;
    });

    for (const stateless of [true, false])
      describe(stateless ? 'stateless' : 'in a session', () => {
        const send = async (server: McpHttpServer): Promise<RawReply> => {
          const session = stateless ? undefined : await openSession(server.url);
          return post(server.url, batch, session).reply;
        };

        it('runs no more than maxConcurrentCalls at once; each call past it is answered busy in the batch', async () => {
          const server = await serve({
            stateless,
            maxConcurrentCalls: 4,
            factory: () => createMcpServer(INFO, [pause]),
          });
          const reply = await send(server);
          expect(reply.status).to.equal(200);
          const answers = answersOf(reply);
          expect(answers.size).to.equal(40);
          expect([...answers.values()].filter((a) => a === 'paused')).to.have.length(4);
          expect(answers.get(40)).to.equal('Server busy: 4 calls running; retry later');
          expect(most).to.equal(4);
          expect(server.activeCalls).to.equal(0);
        });

        it('lets a batch call wait its turn in maxQueuedCalls, never running more than the limit', async () => {
          const server = await serve({
            stateless,
            maxConcurrentCalls: 4,
            maxQueuedCalls: 100,
            factory: () => createMcpServer(INFO, [pause]),
          });
          const answers = answersOf(await send(server));
          expect([...answers.values()]).to.deep.equal(new Array<string>(40).fill('paused'));
          expect(most).to.equal(4);
          expect(server.activeCalls).to.equal(0);
          // The slots are all given back: a call on its own runs at once.
          const session = stateless ? undefined : await openSession(server.url);
          const alone = await post(server.url, callRequest(1, 'pause'), session).reply;
          expect(answersOf(alone).get(1)).to.equal('paused');
        });
      });
  });

  it('mints session ids that start with the instance, for a balancer to route by', async () => {
    const server = await serve({ stateless: false, instance: 'east-2' });
    const client = new Client({ name: 'sdk', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(server.endpoint);
    await client.connect(transport);
    try {
      expect(transport.sessionId).to.match(
        /^east-2\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
      expect((await client.listTools()).tools).to.have.length(1);
    } finally {
      await client.close();
    }
  });

  it('refuses limits that make no sense before taking a port', async () => {
    const factory = () => createMcpServer(INFO, [gate]);
    for (const [options, message] of [
      [{ maxConcurrentCalls: 0 }, 'maxConcurrentCalls must be at least 1'],
      [{ maxQueuedCalls: -1 }, 'maxQueuedCalls must be at least 0'],
      [{ drainGrace: -5 }, 'drainGrace must be a finite number'],
      [{ instance: 'a.b' }, 'instance must be 1 to 64 letters, digits, _ or -'],
    ] as const)
      await serveHttp({ factory, ...options }).then(
        () => expect.fail('accepted'),
        (e: Error) => expect(e.message).to.include(message),
      );
  });
});
