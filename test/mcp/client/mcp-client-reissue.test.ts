/**
 * A call whose response breaks before its answer (a proxy in between cuts it after the first
 * event): sent again when the application says the tool's replay is safe (`connectMcp`'s
 * `replay`), up to twice; otherwise failed with one line saying why it was not sent again.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { connectMcp, httpTransport } from '../../../adapters/mcp-client/index.js';
import {
  createMcpServer,
  serveHttp,
  type McpHttpServer,
} from '../../../adapters/mcp-server/index.js';
import { executeBatch, tool, type ExecutionEvent, type Replay } from '../../../index.js';
import { scaled } from '../../support/time.js';

let runs = 0;
/**
 * Set by the proxy for a response it will cut: the tool answers only once the cut is made, so
 * the answer can never slip through before it, however slow the machine.
 */
let cutMade: Promise<void> | undefined;
const lookup = tool({
  name: 'lookup',
  description: 'Reports a step, then answers.',
  parameters: z.object({ key: z.string() }),
  async *execute({ key }) {
    runs++;
    yield { progress: 1, total: 2, message: 'looking' };
    const held = cutMade;
    cutMade = undefined;
    await (held ?? new Promise((resolve) => setTimeout(resolve, 20)));
    return `found ${key}`;
  },
});

/**
 * A proxy in front of `upstream` that cuts the response of the first `cuts` tools/call POSTs
 * just after their first bytes, as a dropped connection or a lost instance would.
 */
async function cutting(upstream: URL, cuts: number): Promise<{ url: string; server: Server }> {
  let left = cuts;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const cut = body.includes('"tools/call"') && left-- > 0;
      let made = (): void => {};
      if (cut) cutMade = new Promise<void>((resolve) => (made = resolve));
      const forward = httpRequest(upstream, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode!, up.headers);
        let first = true;
        up.on('data', (d: Buffer) => {
          res.write(d);
          if (cut && first) setTimeout(() => (res.destroy(), forward.destroy(), made()), 5);
          first = false;
        });
        up.on('end', () => res.end());
        up.on('error', () => res.destroy());
      });
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

describe('connectMcp: a call whose response breaks before its answer', function () {
  this.timeout(scaled(20_000));
  let upstream: McpHttpServer;
  before(async () => {
    upstream = await serveHttp({
      port: 0,
      stateless: true,
      factory: () => createMcpServer({ name: 'up', version: '1' }, [lookup]),
    });
  });
  after(() => upstream.close());
  beforeEach(() => (runs = 0));

  async function call(cuts: number, mode: 'auto' | 'legacy', replay?: Replay) {
    const proxy = await cutting(upstream.endpoint, cuts);
    const remote = await connectMcp(httpTransport(proxy.url), {
      versionNegotiation: { mode },
      ...(replay === undefined ? {} : { replay: { lookup: replay } }),
    });
    try {
      const events: ExecutionEvent[] = await lastValueFrom(
        executeBatch([{ tool: remote.tools[0]!, call: { id: 'c', args: '{"key":"k"}' } }]).pipe(
          toArray(),
        ),
      );
      return events;
    } finally {
      await remote.close();
      proxy.server.close();
    }
  }

  for (const mode of ['auto', 'legacy'] as const) {
    const era = mode === 'auto' ? '2026-07-28' : '2025-11-25';

    it(`${era}: a tool said to be safe to run again is sent again, and the call ends with its answer`, async () => {
      const events = await call(1, mode, 'safe');
      const final = events.at(-1)!;
      expect(final.error?.message).to.equal(undefined);
      expect(final.result?.output).to.equal('found k');
      expect(runs).to.equal(2);
      // The progress of both runs is the call's.
      expect(events.filter((e) => !e.final).length).to.be.at.least(2);
    });

    it(`${era}: any other tool's call fails in one line saying why it was not sent again`, async () => {
      for (const replay of [undefined, 'idempotent', 'unsafe'] as const) {
        runs = 0;
        const final = (await call(1, mode, replay)).at(-1)!;
        expect(final.error?.message).to.match(
          /^mcp: call "lookup": .*connection lost: the response broke .*; not sent again: its replay is not safe$/,
        );
        expect(runs, String(replay)).to.equal(1);
      }
    });
  }

  it('sends a safe call again twice at most: a third broken response fails it', async () => {
    const final = (await call(5, 'auto', 'safe')).at(-1)!;
    expect(final.error?.message).to.match(/connection lost: the response broke/);
    expect(final.error?.message).not.to.contain('not sent again');
    expect(runs).to.equal(3);
  });
});
