import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import {
  connect as connectTcp,
  createServer as createTcpServer,
  type AddressInfo,
  type Socket,
} from 'node:net';
import { Observable } from 'rxjs';
import { connectMcp, httpTransport } from '../../../adapters/mcp-client/index.js';
import { createMcpServer, serveHttp } from '../../../adapters/mcp-server/index.js';
import { rawTool, textResult, type Tool, type ToolEvent } from '../../../index.js';
import { runTool } from '../../support/run.js';
import { scaled } from '../../support/time.js';

let started: () => void = () => undefined;
const hang = rawTool({
  name: 'hang',
  description: 'Runs until cancelled.',
  execute: () => new Observable<ToolEvent>(() => started()),
});
const quick = rawTool({
  name: 'quick',
  description: 'Answers at once.',
  execute: () =>
    new Observable<ToolEvent>((s) => {
      s.next({ final: true, result: textResult('quick') });
      s.complete();
    }),
});

function find(tools: readonly Tool[], name: string): Tool {
  return tools.find((t) => t.name === name)!;
}

describe('connectMcp over HTTP: a call whose response is lost fails at once', function () {
  this.timeout(scaled(15_000));

  /**
   * A TCP relay in front of `target`: `cut()` destroys every connection through it, as a server
   * process that dies does (its own `close` answers what still runs: see the drain tests).
   */
  async function relay(target: URL): Promise<{ url: URL; cut: () => void; close: () => void }> {
    const sockets = new Set<Socket>();
    const server = createTcpServer((inbound) => {
      const outbound = connectTcp(Number(target.port), target.hostname);
      for (const socket of [inbound, outbound]) {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => sockets.delete(socket));
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = new URL(target);
    url.port = String((server.address() as AddressInfo).port);
    const cut = () => {
      for (const socket of sockets) socket.destroy();
    };
    return { url, cut, close: () => (cut(), server.close()) };
  }

  for (const stateless of [false, true])
    it(`fails a running call within a second when its server goes away (${stateless ? 'stateless' : 'sessions'})`, async () => {
      const http = await serveHttp({
        stateless,
        factory: () => createMcpServer({ name: 'lost', version: '1' }, [hang, quick]),
      });
      const path = await relay(http.endpoint);
      const remote = await connectMcp(httpTransport(path.url));
      try {
        const running = new Promise<void>((resolve) => (started = resolve));
        const call = runTool(find(remote.tools, 'hang'));
        await running;
        const gone = Date.now();
        path.cut();
        const { error } = await call;
        expect(Date.now() - gone).to.be.below(1_000);
        expect((error as Error).message).to.match(
          /^mcp: call "hang": connection lost: the (response ended|response broke|request failed)/,
        );
        expect((error as { code?: unknown }).code).to.equal('connection_lost');
      } finally {
        path.close();
        await remote.close().catch(() => undefined);
        await http.close();
      }
    });

  it('fails a call that a balancer answers with an error page (502) in one line', async () => {
    let status = 0;
    const http = await serveHttp({
      stateless: true,
      factory: () => createMcpServer({ name: 'lost', version: '1' }, [hang, quick]),
    });
    // A stand-in for a balancer: passes requests on, or answers an HTML error page as nginx does
    // when its upstream is down.
    const proxy: Server = createServer((req, res) => {
      if (status !== 0) {
        res.writeHead(status, 'Bad Gateway', { 'content-type': 'text/html' });
        res.end('<html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>\n');
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = { ...req.headers } as Record<string, string>;
        delete headers.host;
        delete headers.connection;
        void fetch(http.url, {
          method: req.method,
          headers,
          body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
        }).then(async (r) => {
          const back: Record<string, string> = {};
          r.headers.forEach((value, key) => (back[key] = value));
          res.writeHead(r.status, back);
          res.end(Buffer.from(await r.arrayBuffer()));
        });
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const port = (proxy.address() as AddressInfo).port;
    const remote = await connectMcp(httpTransport(`http://127.0.0.1:${port}/mcp`));
    try {
      const ok = await runTool(find(remote.tools, 'quick'));
      expect(ok.events.at(-1)?.result.output).to.equal('quick');
      status = 502;
      const { error } = await runTool(find(remote.tools, 'quick'));
      expect((error as Error).message).to.include('HTTP 502 Bad Gateway');
      expect((error as Error).message).not.to.include('<html>');
    } finally {
      await remote.close().catch(() => undefined);
      proxy.closeAllConnections();
      proxy.close();
      await http.close();
    }
  });
});
