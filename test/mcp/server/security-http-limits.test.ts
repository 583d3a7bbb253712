import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { Observable } from 'rxjs';
import {
  createMcpServer,
  serveHttp,
  type McpHttpServer,
} from '../../../adapters/mcp-server/index.js';
import { rawTool, type ToolEvent } from '../../../index.js';
import { final, progress } from '../../../testing/index.js';
import {
  callRequest,
  cancelNotification,
  openSession,
  post,
  type RawReply,
} from '../../support/raw-http.js';
import { initializeRequest } from '../../support/mcp-messages.js';
import { echo } from '../../support/tools.js';
import { scaled } from '../../support/time.js';

const info = { name: 'limits', version: '1' };

/** Resolves with `promise`, or rejects once `ms` have passed: a hang fails the test at once. */
function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function textOf(reply: RawReply): string {
  const result = reply.messages.at(-1)?.result as { content: { text: string }[] } | undefined;
  return result?.content[0]?.text ?? JSON.stringify(reply.messages);
}

/** A raw socket to `url`, and a promise of its closing (with whatever the server wrote). */
function rawSocket(url: URL): { socket: Socket; closed: Promise<string> } {
  const socket = connect(Number(url.port), url.hostname);
  let text = '';
  socket.setEncoding('utf8').on('data', (d: string) => (text += d));
  socket.on('error', () => undefined);
  return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve(text))) };
}

describe('HTTP limits: what one client can hold of the server', function () {
  this.timeout(scaled(15_000));

  describe('sessions, calls and request ids', () => {
    let started = 0;
    let aborted = 0;
    const waiters: (() => void)[] = [];
    /** Runs until released (`release()`) or cancelled. */
    const hold = rawTool({
      name: 'hold',
      description: 'Runs until released or cancelled.',
      execute: (_call, context) =>
        new Observable<ToolEvent>((subscriber) => {
          started++;
          context.signal.addEventListener('abort', () => aborted++);
          waiters.push(() => {
            subscriber.next(final('released'));
            subscriber.complete();
          });
        }),
    });
    const release = (): void => {
      for (const wake of waiters.splice(0)) wake();
    };
    /** Resolves once `count` calls of hold have started. */
    const startedAt = async (count: number): Promise<void> => {
      while (started < count) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    let http: McpHttpServer;

    beforeEach(async () => {
      started = 0;
      aborted = 0;
      http = await serveHttp({
        maxSessions: 3,
        factory: () => createMcpServer(info, [hold, echo]),
      });
    });
    afterEach(async () => {
      release();
      await http.close();
    });

    it('answers an initialize past maxSessions of sessions in use with 503, Retry-After and a JSON-RPC error; open sessions go on', async () => {
      const sessions = [
        await openSession(http.url),
        await openSession(http.url),
        await openSession(http.url),
      ];
      // Each session has made a request: none is a bare initialize that a new one may replace.
      for (const session of sessions)
        expect(
          textOf(await post(http.url, callRequest(1, 'echo', { text: 'used' }), session).reply),
        ).to.equal('used');
      const refused = await post(http.url, initializeRequest).reply;
      expect(refused.status).to.equal(503);
      expect(refused.headers['content-type']).to.equal('application/json');
      // No session frees itself before the idle timeout (30 min), so the client is told to come
      // back in a minute rather than at once.
      expect(refused.headers['retry-after']).to.equal('60');
      expect(refused.messages).to.deep.equal([
        {
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Service unavailable: too many sessions (3)' },
          id: null,
        },
      ]);
      expect(http.sessions).to.equal(3);
      for (const session of sessions) {
        const reply = await post(http.url, callRequest(1, 'echo', { text: 'open' }), session).reply;
        expect(textOf(reply)).to.equal('open');
      }
    });

    it('closes the POST of each call its client cancels, at once', async () => {
      const session = await openSession(http.url);
      const calls = 20;
      for (let i = 1; i <= calls; i++) {
        const call = post(http.url, callRequest(i, 'hold'), session);
        await startedAt(i);
        await post(http.url, cancelNotification(i), session).reply;
        const reply = await within(2_000, call.reply, `the POST of cancelled call ${i}`);
        expect(reply.status).to.equal(200);
        expect(reply.messages).to.deep.equal([]);
      }
      expect(aborted).to.equal(calls);
      // The ids are free again, and the session serves on.
      const again = await post(http.url, callRequest(1, 'echo', { text: 'again' }), session).reply;
      expect(textOf(again)).to.equal('again');
    });

    it('refuses a request id still in flight, and the first request keeps its answer', async () => {
      const session = await openSession(http.url);
      const first = post(http.url, callRequest(7, 'hold'), session);
      await startedAt(1);
      const reused = await post(http.url, callRequest(7, 'echo', { text: 'second' }), session)
        .reply;
      expect(reused.status).to.equal(400);
      expect(reused.messages).to.deep.equal([
        {
          jsonrpc: '2.0',
          error: { code: -32600, message: 'Invalid Request: request id already in use' },
          id: 7,
        },
      ]);
      release();
      expect(textOf(await within(2_000, first.reply, 'the first request'))).to.equal('released');
      // Answered, the id may be used again.
      const later = await post(http.url, callRequest(7, 'echo', { text: 'later' }), session).reply;
      expect(textOf(later)).to.equal('later');
    });
  });

  describe('sessions that only initialized', () => {
    /** A bare initialize, as a flood sends it: the session id it got, or the HTTP status. */
    const bareInitialize = async (url: string | URL): Promise<string | number> => {
      const reply = await post(url, initializeRequest).reply;
      const id = reply.headers['mcp-session-id'];
      return typeof id === 'string' ? id : reply.status;
    };

    it('gives the place of the oldest session that only initialized to a new client, at once', async () => {
      const http = await serveHttp({
        maxSessions: 3,
        factory: () => createMcpServer(info, [echo]),
      });
      try {
        const flood: (string | number)[] = [];
        for (let i = 0; i < 20; i++) flood.push(await bareInitialize(http.url));
        // Every initialize of the flood was answered, each taking the place of the oldest bare one.
        for (const id of flood) expect(id).to.be.a('string');
        expect(http.sessions).to.equal(3);
        const session = await openSession(http.url);
        const reply = await post(http.url, callRequest(1, 'echo', { text: 'served' }), session)
          .reply;
        expect(textOf(reply)).to.equal('served');
        // The flood goes on; a session in use keeps its place.
        for (let i = 0; i < 10; i++) expect(await bareInitialize(http.url)).to.be.a('string');
        const again = await post(http.url, callRequest(2, 'echo', { text: 'kept' }), session).reply;
        expect(textOf(again)).to.equal('kept');
        // A replaced session is gone: its id is 404.
        const gone = await post(http.url, callRequest(1, 'echo', { text: 'x' }), String(flood[0]))
          .reply;
        expect(gone.status).to.equal(404);
      } finally {
        await http.close();
      }
    });

    it('closes a session that made no request within sessionInitTimeout; a session in use stays', async () => {
      const http = await serveHttp({
        maxSessions: 4,
        // Long enough on a busy machine for the used session's first request to come in time.
        sessionInitTimeout: scaled(100),
        factory: () => createMcpServer(info, [echo]),
      });
      try {
        const used = await openSession(http.url);
        expect(
          textOf(await post(http.url, callRequest(1, 'echo', { text: 'a' }), used).reply),
        ).to.equal('a');
        for (let i = 0; i < 3; i++) expect(await bareInitialize(http.url)).to.be.a('string');
        expect(http.sessions).to.equal(4);
        const started = Date.now();
        while (http.sessions > 1 && Date.now() - started < scaled(3_000))
          await new Promise((resolve) => setTimeout(resolve, 10));
        expect(http.sessions).to.equal(1);
        expect(Date.now() - started).to.be.below(scaled(1_000));
        const later = await post(http.url, callRequest(2, 'echo', { text: 'b' }), used).reply;
        expect(textOf(later)).to.equal('b');
      } finally {
        await http.close();
      }
    });

    it('tells a client refused for want of a session when the first one is due to close', async () => {
      const http = await serveHttp({
        maxSessions: 1,
        sessionIdleTimeout: 5_000,
        factory: () => createMcpServer(info, [echo]),
      });
      try {
        const used = await openSession(http.url);
        await post(http.url, callRequest(1, 'echo', { text: 'a' }), used).reply;
        const refused = await post(http.url, initializeRequest).reply;
        expect(refused.status).to.equal(503);
        expect(Number(refused.headers['retry-after'])).to.be.within(4, 5);
      } finally {
        await http.close();
      }
    });

    it('refuses a sessionInitTimeout that is not a number of ms, at least 0', async () => {
      for (const sessionInitTimeout of [-1, Number.NaN])
        await serveHttp({ sessionInitTimeout, factory: () => createMcpServer(info, [echo]) }).then(
          () => expect.fail('accepted'),
          (e: Error) => expect(e.message).to.include('sessionInitTimeout must be'),
        );
    });
  });

  describe('connections', () => {
    it('closes a connection that sends its headers too slowly, or nothing at all', async () => {
      const http = await serveHttp({
        headersTimeout: 200,
        requestTimeout: 400,
        factory: () => createMcpServer(info, [echo]),
      });
      try {
        const slow = rawSocket(http.endpoint);
        slow.socket.write(`POST /mcp HTTP/1.1\r\nhost: ${http.endpoint.host}\r\n`);
        const silent = rawSocket(http.endpoint);
        const [slowReply, silentReply] = await within(
          3_000,
          Promise.all([slow.closed, silent.closed]),
          'idle connections',
        );
        expect(slowReply).to.match(/^HTTP\/1\.1 408|^$/);
        expect(silentReply).to.match(/^HTTP\/1\.1 408|^$/);
        // Meanwhile, and after, the server answers.
        const session = await openSession(http.url);
        const reply = await post(http.url, callRequest(1, 'echo', { text: 'up' }), session).reply;
        expect(textOf(reply)).to.equal('up');
      } finally {
        await http.close();
      }
    });

    it('never cuts a call that streams progress for longer than the request timeout', async () => {
      const ticks = rawTool({
        name: 'ticks',
        description: 'Reports progress for a second.',
        execute: () =>
          new Observable<ToolEvent>((subscriber) => {
            let n = 0;
            const timer = setInterval(() => {
              if (++n < 10) subscriber.next(progress(`tick ${n}`));
              else {
                subscriber.next(final('done'));
                subscriber.complete();
              }
            }, 100);
            return () => clearInterval(timer);
          }),
      });
      const http = await serveHttp({
        headersTimeout: 150,
        requestTimeout: 200,
        factory: () => createMcpServer(info, [ticks]),
      });
      try {
        const session = await openSession(http.url);
        const call = {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'ticks', arguments: {}, _meta: { progressToken: 'p' } },
        };
        const reply = await post(http.url, call, session).reply;
        expect(reply.messages).to.have.length(10);
        expect(textOf(reply)).to.equal('done');
      } finally {
        await http.close();
      }
    });

    it('closes connections past maxConnections, and serves again once one is freed', async () => {
      const http = await serveHttp({
        maxConnections: 2,
        factory: () => createMcpServer(info, [echo]),
      });
      try {
        const held = [rawSocket(http.endpoint), rawSocket(http.endpoint)];
        await Promise.all(held.map(({ socket }) => new Promise((r) => socket.once('connect', r))));
        await new Promise((resolve) => setTimeout(resolve, 50));
        const third = rawSocket(http.endpoint);
        expect(await within(2_000, third.closed, 'the third connection')).to.equal('');
        held[0]!.socket.destroy();
        await held[0]!.closed;
        await new Promise((resolve) => setTimeout(resolve, 50));
        const init = await post(http.url, initializeRequest).reply;
        expect(init.status).to.equal(200);
        held[1]!.socket.destroy();
      } finally {
        await http.close();
      }
    });
  });

  describe('the token', () => {
    it('refuses at startup a token with whitespace or that no client could send', async () => {
      for (const token of ['two words', ' padded', 'line\n', 'tab\there', 'caf\u00e9', '']) {
        let failure: unknown;
        await serveHttp({ token, factory: () => createMcpServer(info, [echo]) }).then(
          (server) => server.close(),
          (err: unknown) => (failure = err),
        );
        expect(failure, JSON.stringify(token)).to.be.instanceOf(RangeError);
        expect((failure as Error).message).to.match(/^token must/);
      }
    });
  });
});
