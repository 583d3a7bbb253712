/**
 * A served tool's question to a client of MCP 2026-07-28: the call is held, running, and answered
 * `input_required`; the client's retry with `inputResponses` carries it on. In one process, and
 * through nginx round-robin over three `agenttool serve --http` instances.
 */
import { expect } from 'chai';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { Observable } from 'rxjs';
import { z } from 'zod';
import {
  createMcpServer,
  serveHttp,
  type McpHttpServer,
} from '../../../adapters/mcp-server/index.js';
import { rawTool, tool, type ElicitRequest, type ToolEvent } from '../../../index.js';
import { CallContext } from '../../../lib/context.js';
import { serveCli, type ServingCli } from '../../support/cli.js';
import { ASKABLE, MODERN, postModern } from '../../support/modern.js';
import {
  exampleSite,
  findNginx,
  freePort,
  startNginx,
  type Balancer,
} from '../../support/nginx.js';
import { scaled } from '../../support/time.js';

let effects = 0;
let cancelled = 0;
/** Told each time a deploy call is cancelled (its teardown before its end). */
let onCancel: () => void = () => undefined;
/** Does something once (counted), asks, then answers with what it was told. */
const deploy = rawTool({
  name: 'deploy',
  description: 'Deploys once it is told to go ahead.',
  execute: (_call, context) =>
    new Observable<ToolEvent>((subscriber) => {
      effects++;
      let done = false;
      void context
        .elicit({
          key: 'go',
          message: 'Go ahead?',
          schema: { type: 'object', properties: { go: { type: 'boolean' } }, required: ['go'] },
        })
        .then(async (answer) => {
          subscriber.next({ final: false, result: { output: 'asked' } });
          if (answer.action === 'accept' && answer.content.go === true) {
            const second = await context.elicit({
              message: 'Which region?',
              schema: { type: 'object', properties: { region: { type: 'string' } } },
            });
            done = true;
            subscriber.next({
              final: true,
              result: { output: `deployed ${JSON.stringify(second)}` },
            });
          } else {
            done = true;
            subscriber.next({ final: true, result: { output: `not deployed: ${answer.action}` } });
          }
          subscriber.complete();
        });
      return () => {
        if (done) return;
        cancelled++;
        onCancel();
      };
    }),
});

const TOOLS = [
  deploy,
  tool({
    name: 'plain',
    description: 'Answers at once.',
    parameters: z.object({}),
    execute: () => 'plain',
  }),
];

type Json = Record<string, unknown>;

function resultOf(body: Json): Json {
  if (body.error !== undefined) throw new Error(JSON.stringify(body.error));
  return body.result as Json;
}

describe('MCP 2026-07-28: a tool that asks is held until the client retries with the answer', function () {
  this.timeout(scaled(20_000));
  let http: McpHttpServer;

  async function serve(
    retryTimeout?: number,
    maxConcurrentCalls?: number,
    more: { questionTimeoutMs?: number; maxHeldCalls?: number } = {},
  ): Promise<void> {
    http = await serveHttp({
      port: 0,
      ...(maxConcurrentCalls === undefined ? {} : { maxConcurrentCalls }),
      ...(more.maxHeldCalls === undefined ? {} : { maxHeldCalls: more.maxHeldCalls }),
      factory: () =>
        createMcpServer({ name: 's', version: '1' }, TOOLS, {
          // The deprecated name still works.
          ...(retryTimeout === undefined ? {} : { retryTimeout }),
          ...(more.questionTimeoutMs === undefined
            ? {}
            : { questionTimeoutMs: more.questionTimeoutMs }),
        }),
    });
  }

  const ask = () =>
    postModern(http.url, 'tools/call', { name: 'deploy', arguments: {} }, {}, ASKABLE);
  const plain = () => postModern(http.url, 'tools/call', { name: 'plain', arguments: {} });
  const readyz = async () => (await fetch(new URL('/readyz', http.url))).status;

  beforeEach(() => {
    effects = 0;
    cancelled = 0;
  });
  afterEach(async () => {
    await http.close();
  });

  it('answers input_required with the question, and the retry carries the call on: nothing runs twice', async () => {
    await serve();
    const first = resultOf(
      (await postModern(http.url, 'tools/call', { name: 'deploy', arguments: {} }, {}, ASKABLE))
        .body,
    );
    expect(first.resultType).to.equal('input_required');
    const requests = first.inputRequests as Record<string, { method: string; params: Json }>;
    // Under the key the tool named its question.
    expect(Object.keys(requests)).to.deep.equal(['go']);
    expect(requests.go!.method).to.equal('elicitation/create');
    expect(requests.go!.params).to.deep.include({ mode: 'form', message: 'Go ahead?' });
    expect(first.requestState).to.be.a('string');

    const second = resultOf(
      (
        await postModern(
          http.url,
          'tools/call',
          {
            name: 'deploy',
            arguments: {},
            inputResponses: { go: { action: 'accept', content: { go: true } } },
            requestState: first.requestState,
          },
          {},
          ASKABLE,
        )
      ).body,
    );
    // The tool's second question, from the same running call.
    expect(second.resultType).to.equal('input_required');
    const next = second.inputRequests as Record<string, { params: Json }>;
    expect(Object.keys(next)).to.deep.equal(['q2']);
    expect(next.q2!.params.message).to.equal('Which region?');

    const third = resultOf(
      (
        await postModern(
          http.url,
          'tools/call',
          {
            name: 'deploy',
            arguments: {},
            inputResponses: { q2: { action: 'accept', content: { region: 'eu' } } },
            requestState: second.requestState,
          },
          {},
          ASKABLE,
        )
      ).body,
    );
    expect(third.resultType).to.equal('complete');
    expect((third.content as { text: string }[])[0]!.text).to.equal(
      'deployed {"action":"accept","content":{"region":"eu"}}',
    );
    expect(effects).to.equal(1);
    expect(cancelled).to.equal(0);
  });

  it('takes an answer the first request gives ahead of the question, and asks nothing', async () => {
    await serve();
    const { body } = await postModern(
      http.url,
      'tools/call',
      {
        name: 'deploy',
        arguments: {},
        inputResponses: { go: { action: 'decline' }, unknown: { action: 'accept', content: {} } },
      },
      {},
      ASKABLE,
    );
    const result = resultOf(body);
    expect(result.resultType).to.equal('complete');
    expect((result.content as { text: string }[])[0]!.text).to.equal('not deployed: decline');
    expect(effects).to.equal(1);
  });

  it('refuses a question whose key is not a name', async () => {
    const context = new CallContext(
      { id: 'c1', args: '{}' },
      { elicitor: () => ({ action: 'decline' }) },
    );
    for (const key of ['', 'with space', 'x'.repeat(65), 7])
      await context
        .elicit({ key, message: 'm', schema: { type: 'object', properties: {} } } as ElicitRequest)
        .then(
          () => expect.fail(`key ${JSON.stringify(key)} was taken`),
          (err: unknown) => expect(String(err)).to.include('the key must be 1 to 64'),
        );
  });

  it('refuses a state that was altered, or that names another tool, and resumes nothing', async () => {
    await serve();
    const first = resultOf(
      (await postModern(http.url, 'tools/call', { name: 'deploy', arguments: {} }, {}, ASKABLE))
        .body,
    );
    const state = first.requestState as string;
    const [body, mac] = state.split('.') as [string, string];
    const altered = Buffer.from(
      Buffer.from(body, 'base64url').toString('utf8').replace('"deploy"', '"plain"'),
    ).toString('base64url');
    for (const [forged, message] of [
      [`${altered}.${mac}`, /signature does not match/],
      ['not-a-state', /not one this server gave/],
    ] as const) {
      const { body: answer } = await postModern(
        http.url,
        'tools/call',
        {
          name: 'plain',
          arguments: {},
          inputResponses: { go: { action: 'accept', content: { go: true } } },
          requestState: forged,
        },
        {},
        ASKABLE,
      );
      const error = answer.error as { code: number; message: string };
      expect(error.code).to.equal(-32602);
      expect(error.message).to.match(message);
    }
    const { body: otherTool } = await postModern(
      http.url,
      'tools/call',
      { name: 'plain', arguments: {}, requestState: state },
      {},
      ASKABLE,
    );
    expect((otherTool.error as { message: string }).message).to.include(
      'belongs to a call of "deploy"',
    );
    expect(effects).to.equal(1);
  });

  it('cancels a held call whose retry does not come in time; a late retry is told to call again', async () => {
    await serve(100);
    const first = resultOf(
      (await postModern(http.url, 'tools/call', { name: 'deploy', arguments: {} }, {}, ASKABLE))
        .body,
    );
    for (let i = 0; i < 100 && cancelled === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(cancelled).to.equal(1);
    const { body } = await postModern(
      http.url,
      'tools/call',
      {
        name: 'deploy',
        arguments: {},
        inputResponses: { go: { action: 'accept', content: { go: true } } },
        requestState: first.requestState,
      },
      {},
      ASKABLE,
    );
    expect((body.error as { message: string }).message).to.match(
      /has ended or expired: call "deploy" again|has expired/,
    );
  });

  it('a held call takes no slot of maxConcurrentCalls while its client answers: N+k unanswered questions do not lock N slots', async () => {
    await serve(undefined, 2);
    const held: Json[] = [];
    for (let i = 0; i < 5; i++) held.push(resultOf((await ask()).body));
    expect(held.map((r) => r.resultType)).to.deep.equal(Array(5).fill('input_required'));
    // Every slot is free: a plain call runs, and the instance says it is ready.
    expect((await plain()).status).to.equal(200);
    expect(await readyz()).to.equal(200);
    // A retry takes a slot while it speaks for the call, and carries it on to its end.
    const retry = (state: unknown, responses: Json) =>
      postModern(
        http.url,
        'tools/call',
        { name: 'deploy', arguments: {}, inputResponses: responses, requestState: state },
        {},
        ASKABLE,
      );
    const second = resultOf(
      (await retry(held[0]!.requestState, { go: { action: 'accept', content: { go: true } } }))
        .body,
    );
    expect(second.resultType).to.equal('input_required');
    const third = resultOf(
      (await retry(second.requestState, { q2: { action: 'accept', content: {} } })).body,
    );
    expect(third.resultType).to.equal('complete');
    expect(http.activeCalls).to.equal(0);
  });

  it('answers a new call that may ask busy (503, Retry-After) once maxHeldCalls wait; other calls run', async () => {
    await serve(undefined, undefined, { maxHeldCalls: 2 });
    const first = resultOf((await ask()).body);
    expect(resultOf((await ask()).body).resultType).to.equal('input_required');
    const refused = await ask();
    expect(refused.status).to.equal(503);
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(refused.body.error).to.deep.include({
      code: -32000,
      message: "Server busy: 2 calls waiting for their clients' answers; retry later",
    });
    expect(effects).to.equal(2);
    // A client that cannot be asked needs no room of held calls.
    expect((await plain()).status).to.equal(200);
    // One held call ends (its question declined): there is room again.
    const ended = await postModern(
      http.url,
      'tools/call',
      {
        name: 'deploy',
        arguments: {},
        inputResponses: { go: { action: 'decline' } },
        requestState: first.requestState,
      },
      {},
      ASKABLE,
    );
    expect(resultOf(ended.body).resultType).to.equal('complete');
    expect(resultOf((await ask()).body).resultType).to.equal('input_required');
  });

  it('frees a held call whose question is not answered within questionTimeoutMs', async () => {
    await serve(undefined, 1, { questionTimeoutMs: 20, maxHeldCalls: 1 });
    const freed = new Promise<void>((resolve) => (onCancel = resolve));
    expect(resultOf((await ask()).body).resultType).to.equal('input_required');
    await freed;
    onCancel = () => undefined;
    // Its room is free again: a new call that asks is held, not refused.
    expect(resultOf((await ask()).body).resultType).to.equal('input_required');
  });

  it('refuses a questionTimeoutMs that is no whole number of ms', () => {
    for (const questionTimeoutMs of [0, -1, 1.5, Number.NaN])
      expect(() =>
        createMcpServer({ name: 's', version: '1' }, TOOLS, { questionTimeoutMs }),
      ).to.throw(RangeError, 'questionTimeoutMs must be a whole number of ms, at least 1');
  });

  it('the SDK v2 client answers through its elicitation handler and gets the result', async () => {
    await serve();
    const client = new ModernClient(
      { name: 'modern', version: '1' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params.message);
      const content: Record<string, string | boolean> =
        request.params.message === 'Go ahead?' ? { go: true } : { region: 'us' };
      return { action: 'accept', content };
    });
    await client.connect(new ModernHttpTransport(http.endpoint));
    try {
      expect(client.getNegotiatedProtocolVersion()).to.equal(MODERN);
      const result = await client.callTool({ name: 'deploy', arguments: {} });
      expect((result.content as { text: string }[])[0]!.text).to.equal(
        'deployed {"action":"accept","content":{"region":"us"}}',
      );
      expect(asked).to.deep.equal(['Go ahead?', 'Which region?']);
      expect(effects).to.equal(1);
    } finally {
      await client.close();
    }
  });
});

const nginx = findNginx();

describe('agenttool serve --http behind nginx round-robin: a question answered on another instance', function () {
  this.timeout(scaled(60_000));
  let instances: ServingCli[] = [];
  let balancer: Balancer | undefined;

  before(function () {
    if (nginx === undefined) {
      process.stdout.write(
        '    SKIPPED: nginx is not installed (apt-get install nginx; .ci/run does): the held-call balancer test did not run\n',
      );
      this.skip();
    }
  });

  after(async () => {
    await balancer?.stop();
    for (const instance of instances) instance.child.kill('SIGKILL');
    await Promise.all(instances.map((i) => i.done));
    instances = [];
  });

  it('forwards each retry to the instance that holds its call, which carries it on', async () => {
    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    const key = 'k'.repeat(40);
    instances = ports.map((port) =>
      serveCli([
        '--http',
        String(port),
        '--stateless',
        '--state-key',
        key,
        '--advertise',
        `http://127.0.0.1:${port}/mcp`,
      ]),
    );
    await Promise.all(instances.map((i) => i.url));
    balancer = await startNginx(nginx!, (listen) =>
      exampleSite('stateless', listen, ports, ['add_header X-Upstream $upstream_addr always;']),
    );
    const upstreams: string[] = [];
    const client = new ModernClient(
      { name: 'through-nginx', version: '1' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', (request) => ({
      action: 'accept',
      content: { answer: `answer to ${request.params.message}` },
    }));
    await client.connect(
      new ModernHttpTransport(balancer.url, {
        fetch: async (url, init) => {
          const response = await fetch(url, init);
          upstreams.push(response.headers.get('x-upstream') ?? 'none');
          return response;
        },
      }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).to.equal(MODERN);
      for (let i = 0; i < 6; i++) {
        const result = await client.callTool({
          name: 'ask_user',
          arguments: { question: `question ${i}` },
        });
        expect(result.isError).to.not.equal(true);
        expect((result.content as { text: string }[])[0]!.text).to.equal(
          `the user answered: answer to question ${i}`,
        );
      }
      // Round-robin spread the requests over all three instances: retries landed on instances
      // that did not hold their calls, and were forwarded.
      expect(new Set(upstreams).size).to.equal(3);
    } finally {
      await client.close();
    }
  });
});
