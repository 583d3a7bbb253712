import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import Ajv2020 from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { Observable } from 'rxjs';
import {
  createMcpServer,
  serveHttp,
  type McpHttpServer,
} from '../../../adapters/mcp-server/index.js';
import {
  rawTool,
  SchemaError,
  textResult,
  ToolPanicError,
  type JsonSchema,
  type Tool,
  type ToolEvent,
} from '../../../index.js';
import { final } from '../../../testing/index.js';
import { callRequest, cancelNotification, openSession, post } from '../../support/raw-http.js';
import { echo } from '../../support/tools.js';
import { scaled } from '../../support/time.js';

const info = { name: 'faults', version: '1' };

/** Resolves on the next call of the returned function. */
function signal(): { wait: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const wait = new Promise<void>((resolve) => (fire = resolve));
  return { wait, fire };
}

/** The text of a raw tools/call answer, with whether it is an error result. */
function resultOf(message: { result?: unknown } | undefined): { text: string; isError: boolean } {
  const result = message?.result as { content: { text: string }[]; isError?: boolean };
  return { text: result.content[0]!.text, isError: result.isError === true };
}

describe('reliability: a served tool or schema faults only its own calls', function () {
  this.timeout(scaled(15_000));

  describe('a tool whose teardown throws', () => {
    let started = signal();
    let reported = signal();
    const errors: Error[] = [];
    const stuck = rawTool({
      name: 'stuck',
      description: 'Never ends; its teardown throws.',
      execute: () =>
        new Observable<ToolEvent>(() => {
          started.fire();
          return () => {
            throw new Error('teardown boom');
          };
        }),
    });
    const late = rawTool({
      name: 'late',
      description: 'Ends from a timer; its teardown throws.',
      execute: () =>
        new Observable<ToolEvent>((subscriber) => {
          const timer = setTimeout(() => {
            subscriber.next(final('late result'));
            subscriber.complete();
          }, 5);
          return () => {
            clearTimeout(timer);
            throw new Error('late teardown boom');
          };
        }),
    });
    let http: McpHttpServer;
    const onError = (error: Error): void => {
      errors.push(error);
      reported.fire();
    };

    before(async () => {
      http = await serveHttp({
        factory: () => createMcpServer(info, [stuck, late, echo], { onError }),
      });
    });
    after(() => http.close());
    beforeEach(() => {
      started = signal();
      reported = signal();
      errors.length = 0;
    });

    it('cancelled by a client over Streamable HTTP, is reported and the server serves on', async () => {
      const [a, b] = [await openSession(http.url), await openSession(http.url)];
      const call = post(http.url, callRequest(1, 'stuck'), a);
      await started.wait;
      await post(http.url, cancelNotification(1), a).reply;
      await reported.wait;
      expect(errors).to.have.length(1);
      expect(errors[0]).to.be.instanceOf(ToolPanicError);
      expect(errors[0]!.message).to.equal('tool "stuck" panicked: teardown threw: teardown boom');
      // The cancelled POST is closed without an answer, both sessions go on.
      expect((await call.reply).messages).to.deep.equal([]);
      for (const session of [a, b]) {
        const reply = await post(http.url, callRequest(2, 'echo', { text: 'on' }), session).reply;
        expect(resultOf(reply.messages[0])).to.deep.equal({ text: 'on', isError: false });
      }
    });

    it('after a final sent from a timer, keeps the result and reports the teardown', async () => {
      const session = await openSession(http.url);
      const reply = await post(http.url, callRequest(1, 'late'), session).reply;
      expect(resultOf(reply.messages[0])).to.deep.equal({ text: 'late result', isError: false });
      await reported.wait;
      expect(errors.map((e) => e.message)).to.deep.equal([
        'tool "late" panicked: teardown threw: late teardown boom',
      ]);
    });

    it('over any other transport (in memory, as stdio), is contained the same way', async () => {
      const server = createMcpServer(info, [stuck, echo], { onError });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client({ name: 'plain', version: '1' });
      await client.connect(clientSide);
      const controller = new AbortController();
      const call = client
        .callTool({ name: 'stuck', arguments: {} }, undefined, { signal: controller.signal })
        .catch((err: unknown) => err);
      await started.wait;
      controller.abort();
      await call;
      await reported.wait;
      expect(errors[0]!.message).to.match(/teardown threw: teardown boom/);
      const after = await client.callTool({ name: 'echo', arguments: { text: 'still' } });
      expect(after.content).to.deep.equal([{ type: 'text', text: 'still' }]);
      await client.close();
    });
  });

  describe('a hand-written tool whose async execute rejects', () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    before(() => process.on('unhandledRejection', onUnhandled));
    after(() => process.off('unhandledRejection', onUnhandled));
    // Made by hand, as Tool's type does not allow: `execute` returns a Promise.
    const rejects = {
      name: 'rejects',
      description: 'Rejects after a tick.',
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        throw new Error('no disk');
      },
    } as unknown as Tool;

    it('answers its call with an isError result; the server and another session go on', async () => {
      const http = await serveHttp({ factory: () => createMcpServer(info, [rejects, echo]) });
      try {
        const [a, b] = [await openSession(http.url), await openSession(http.url)];
        const reply = await post(http.url, callRequest(1, 'rejects'), a).reply;
        expect(resultOf(reply.messages[0])).to.deep.equal({
          text: 'Error: no disk',
          isError: true,
        });
        await new Promise((resolve) => setTimeout(resolve, 10));
        expect(unhandled).to.deep.equal([]);
        for (const session of [a, b]) {
          const echoed = await post(http.url, callRequest(2, 'echo', { text: 'on' }), session)
            .reply;
          expect(resultOf(echoed.messages[0])).to.deep.equal({ text: 'on', isError: false });
        }
      } finally {
        await http.close();
      }
    });
  });

  describe('schemas from elsewhere', () => {
    it('matches a catastrophic pattern in linear time while another session is served', async () => {
      const evil = rawTool({
        name: 'evil',
        description: 'A pattern that backtracks.',
        parameters: {
          type: 'object',
          properties: { s: { type: 'string', pattern: '^(a+)+$' } },
          required: ['s'],
        },
        execute: () => textResult('ran'),
      });
      const http = await serveHttp({ factory: () => createMcpServer(info, [evil, echo]) });
      try {
        const [a, b] = [await openSession(http.url), await openSession(http.url)];
        const slow = post(http.url, callRequest(1, 'evil', { s: 'a'.repeat(30) + '!' }), a).reply;
        const other = post(http.url, callRequest(1, 'echo', { text: 'meanwhile' }), b).reply;
        const [refused, answered] = await Promise.all([slow, other]);
        expect(resultOf(refused.messages[0]).isError).to.equal(true);
        expect(resultOf(refused.messages[0]).text).to.match(/^Error: invalid arguments: s: /);
        expect(resultOf(answered.messages[0]).text).to.equal('meanwhile');
      } finally {
        await http.close();
      }
    });

    it('fails a call whose check fans out past its budget, at once, while another session is served', async () => {
      // Each of d0..d25 is an anyOf of two references to the next: 2^26 checks without a budget.
      const $defs: Record<string, JsonSchema> = {};
      for (let i = 0; i < 26; i++)
        $defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
      $defs.d26 = { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] };
      const fanOut = rawTool({
        name: 'fan_out',
        description: '',
        parameters: { type: 'object', properties: { v: { $ref: '#/$defs/d0' } }, $defs },
        execute: () => textResult('ran'),
      });
      const http = await serveHttp({ factory: () => createMcpServer(info, [fanOut, echo]) });
      try {
        const [a, b] = [await openSession(http.url), await openSession(http.url)];
        const heavy = post(http.url, callRequest(1, 'fan_out', { v: { x: 1 } }), a).reply;
        const other = post(http.url, callRequest(1, 'echo', { text: 'meanwhile' }), b).reply;
        const [refused, answered] = await Promise.all([heavy, other]);
        expect(resultOf(refused.messages[0]).isError).to.equal(true);
        expect(resultOf(refused.messages[0]).text).to.match(
          /^Error: invalid arguments: cannot be checked: the schema follows more than \d+ references/,
        );
        expect(resultOf(answered.messages[0]).text).to.equal('meanwhile');
        const again = await post(http.url, callRequest(2, 'fan_out', {}), a).reply;
        expect(resultOf(again.messages[0]).text).to.equal('ran');
      } finally {
        await http.close();
      }
    });

    it('leaves out, with one report, a tool whose pattern cannot compile; the others are served', async () => {
      const broken = ['(', '^[\\w-.]+$'].map((pattern, i) =>
        rawTool({
          name: `broken${i}`,
          description: '',
          parameters: { type: 'object', properties: { s: { type: 'string', pattern } } },
          execute: () => textResult('never'),
        }),
      );
      const errors: Error[] = [];
      const http = await serveHttp({
        factory: () =>
          createMcpServer(info, [...broken, echo], { onError: (error) => errors.push(error) }),
      });
      try {
        for (let i = 0; i < 2; i++) {
          const session = await openSession(http.url);
          const list = await post(
            http.url,
            { jsonrpc: '2.0', id: 1, method: 'tools/list' },
            session,
          ).reply;
          const names = (list.messages[0]!.result as { tools: { name: string }[] }).tools;
          expect(names.map((t) => t.name)).to.deep.equal(['echo']);
          const call = await post(http.url, callRequest(2, 'broken0', { s: 'x' }), session).reply;
          expect(call.messages[0]!.error?.message).to.match(/unknown tool "broken0"/);
        }
        // Once per tool, however many sessions.
        expect(errors.map((e) => e.constructor)).to.deep.equal([SchemaError, SchemaError]);
        expect(errors.map((e) => (e as SchemaError).tool)).to.deep.equal(['broken0', 'broken1']);
      } finally {
        await http.close();
      }
    });

    it('are compiled once per tool at its first call, not once per session, past the schema cache size', async () => {
      const tools = Array.from({ length: 600 }, (_, i) =>
        rawTool({
          name: `t${i}`,
          description: '',
          parameters: { type: 'object', properties: { [`p${i}`]: { type: 'integer' } } },
          execute: () => textResult(String(i)),
        }),
      );
      // Every ajv instance (2020-12 or draft-07) compiles through the core class's method.
      const prototype = Object.getPrototypeOf(Ajv2020.default.prototype) as {
        compile: (...args: unknown[]) => unknown;
      };
      expect(Object.hasOwn(prototype, 'compile')).to.equal(true);
      const compile = prototype.compile;
      let compiled = 0;
      prototype.compile = function (this: unknown, ...args: unknown[]) {
        compiled++;
        return compile.apply(this, args);
      };
      try {
        const http = await serveHttp({ factory: () => createMcpServer(info, tools) });
        try {
          await openSession(http.url);
          const session = await openSession(http.url);
          // A schema is compiled at its tool's first call, not as sessions open (a cold start
          // answers without compiling 600 schemas).
          expect(compiled).to.equal(0);
          const reply = await post(http.url, callRequest(1, 't3', { p3: 'x' }), session).reply;
          expect(resultOf(reply.messages[0]).text).to.equal(
            'Error: invalid arguments: p3: expected integer, got "x"',
          );
          const once = compiled;
          expect(once).to.be.at.least(1);
          // Another session calling the same tool compiles nothing more.
          const other = await openSession(http.url);
          const again = await post(http.url, callRequest(2, 't3', { p3: 'y' }), other).reply;
          expect(resultOf(again.messages[0]).text).to.equal(
            'Error: invalid arguments: p3: expected integer, got "y"',
          );
          expect(compiled).to.equal(once);
        } finally {
          await http.close();
        }
      } finally {
        prototype.compile = compile;
      }
    });
  });
});
