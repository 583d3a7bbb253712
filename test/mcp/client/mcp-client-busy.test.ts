/**
 * A call refused busy (HTTP 503 with `Retry-After`: the server ran nothing) against
 * `agenttool serve --http --max-calls 1`: `httpTransport` sends it again after the wait the server
 * asks for, a bounded number of times; when they run out, the call fails with the server's
 * message in one line.
 */
import { expect } from 'chai';
import { StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import { lastValueFrom, toArray } from 'rxjs';
import { AnswerWatch } from '../../../adapters/mcp-client/answer-watch.js';
import { connectMcp, httpTransport, type McpRemote } from '../../../adapters/mcp-client/index.js';
import { executeBatch, type ExecutionEvent } from '../../../index.js';
import { serveCli, type ServingCli } from '../../support/cli.js';
import { scaled } from '../../support/time.js';

/** Two slow_count calls at once: one runs, the other meets the full server. */
async function twoAtOnce(remote: McpRemote): Promise<ExecutionEvent[]> {
  const count = remote.tools.find((t) => t.name === 'slow_count')!;
  const call = (id: string) => ({ tool: count, call: { id, args: '{"to":1,"step_ms":400}' } });
  const events = await lastValueFrom(executeBatch([call('a'), call('b')]).pipe(toArray()));
  return events.filter((e) => e.final);
}

describe('connectMcp against a busy server (agenttool serve --http --max-calls 1)', function () {
  this.timeout(scaled(60_000));
  let served: ServingCli;
  let url: URL;

  before(async () => {
    served = serveCli(['--max-calls', '1']);
    url = await served.url;
  });
  after(async () => {
    served.child.kill('SIGKILL');
    await served.done;
  });

  for (const mode of ['auto', 'legacy'] as const) {
    const era = mode === 'auto' ? '2026-07-28' : '2025-11-25';

    it(`${era}: the refused call is sent again after Retry-After, and both calls succeed`, async () => {
      const statuses: number[] = [];
      const counting: FetchLike = async (input, init) => {
        const res = await fetch(input, init);
        if (typeof init?.body === 'string' && init.body.includes('"tools/call"'))
          statuses.push(res.status);
        return res;
      };
      const watch = new AnswerWatch(counting);
      const transport = watch.wrap(new StreamableHTTPClientTransport(url, { fetch: watch.fetch }));
      const remote = await connectMcp(transport, { versionNegotiation: { mode } });
      try {
        const finals = await twoAtOnce(remote);
        expect(finals.map((e) => e.error?.message ?? e.result?.output)).to.deep.equal([
          'counted to 1',
          'counted to 1',
        ]);
        // One was refused busy at least once, then ran: nothing ran twice.
        expect(statuses).to.include(503);
        expect(statuses.filter((s) => s === 200)).to.have.length(2);
      } finally {
        await remote.close();
      }
    });

    it(`${era}: with busyRetries 0, the refused call fails at once, in one line`, async () => {
      const remote = await connectMcp(httpTransport(url, { busyRetries: 0 }), {
        versionNegotiation: { mode },
      });
      try {
        const finals = await twoAtOnce(remote);
        const failed = finals.filter((e) => e.error !== undefined);
        expect(failed).to.have.length(1);
        expect(failed[0]!.error).to.include({ code: 'http', status: 503 });
        expect(failed[0]!.error!.message).to.equal(
          'mcp: call "slow_count": MCP error -32000: Server busy: 1 calls running; retry later (HTTP 503)',
        );
      } finally {
        await remote.close();
      }
    });
  }

  it('refuses a busyRetries that is not a whole number', () => {
    expect(() => httpTransport(url, { busyRetries: -1 })).to.throw(
      RangeError,
      'busyRetries must be a whole number, at least 0, got -1',
    );
  });
});
