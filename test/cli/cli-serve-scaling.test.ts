import { expect } from 'chai';
import { runCli, serveCli } from '../support/cli.js';
import { ASKABLE, postModern } from '../support/modern.js';
import { postCall } from '../support/post-call.js';
import { scaled } from '../support/time.js';

/** One tools/call of slow_count POSTed on its own, as a stateless client sends it. */
function slowCount(url: URL, to: number, stepMs: number): Promise<Response> {
  return postCall(url, 'slow_count', { to, step_ms: stepMs });
}

describe('agenttool serve --http: admission and drain for load balancers', function () {
  this.timeout(scaled(30_000));

  it('drains on SIGTERM: the running call finishes, new ones get 503, then it exits 0', async () => {
    const served = serveCli(['--stateless', '--drain-grace', '10000']);
    const url = await served.url;
    const running = slowCount(url, 4, 250);
    // The call is running once its response headers are in (the SSE stream opens at once).
    const response = await running;
    expect(response.status).to.equal(200);
    served.child.kill('SIGTERM');
    const ready = new URL('/readyz', url);
    let readyz = await fetch(ready);
    for (let i = 0; i < 50 && readyz.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      readyz = await fetch(ready);
    }
    expect(readyz.status).to.equal(503);
    expect(await readyz.text()).to.equal('draining\n');
    const refused = await slowCount(url, 1, 0);
    expect(refused.status).to.equal(503);
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(await response.text()).to.include('counted to 4');
    const result = await served.done;
    expect(result.status).to.equal(0);
    expect(result.stderr).to.include('draining');
  });

  it('drains on SIGTERM: a call that outlives --drain-grace is answered so before its stream ends', async () => {
    const served = serveCli(['--stateless', '--drain-grace', '200']);
    const url = await served.url;
    const response = await slowCount(url, 40, 250);
    expect(response.status).to.equal(200);
    served.child.kill('SIGTERM');
    const text = await response.text();
    expect(text).to.include('"isError":true');
    expect(text).to.include('Error: server shutting down: call \\"slow_count\\" was cancelled');
    expect((await served.done).status).to.equal(0);
  });

  it('--max-calls: a call past the limit is answered busy, the others run', async () => {
    const served = serveCli(['--stateless', '--max-calls', '1']);
    try {
      const url = await served.url;
      const first = await slowCount(url, 2, 200);
      const second = await slowCount(url, 1, 0);
      expect(second.status).to.equal(503);
      expect(await second.text()).to.include('Server busy: 1 calls running');
      expect(await first.text()).to.include('counted to 2');
    } finally {
      served.child.kill('SIGINT');
      await served.done;
    }
  });

  it('--max-held-calls and --question-timeout: unanswered questions hold no --max-calls slot, and have a cap of their own', async () => {
    const served = serveCli([
      '--stateless',
      '--max-calls',
      '1',
      '--max-held-calls',
      '2',
      '--question-timeout',
      '600000',
    ]);
    try {
      const url = await served.url;
      const ask = () =>
        postModern(
          url,
          'tools/call',
          { name: 'ask_user', arguments: { question: 'Go?' } },
          {},
          ASKABLE,
        );
      for (let i = 0; i < 2; i++)
        expect((await ask()).body.result).to.deep.include({ resultType: 'input_required' });
      const refused = await ask();
      expect(refused.status).to.equal(503);
      expect(refused.headers.get('retry-after')).to.equal('1');
      // The one call slot is free: a plain call runs, and the instance is ready.
      expect(await (await slowCount(url, 1, 0)).text()).to.include('counted to 1');
      expect((await fetch(new URL('/readyz', url))).status).to.equal(200);
    } finally {
      served.child.kill('SIGINT');
      await served.done;
    }
  });

  it('--instance: the session ids it mints start with the instance id', async () => {
    const served = serveCli(['--instance', 'b']);
    try {
      const url = await served.url;
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'raw', version: '1' },
          },
        }),
      });
      expect(res.status).to.equal(200);
      expect(res.headers.get('mcp-session-id')).to.match(/^b\.[0-9a-f-]{36}$/);
      await res.body?.cancel();
    } finally {
      served.child.kill('SIGINT');
      await served.done;
    }
  });

  it('refuses the scaling flags without --http, and --max-queued without --max-calls', async () => {
    for (const [args, message] of [
      [['serve', '--max-calls', '4'], '--max-calls applies to --http only'],
      [['serve', '--drain-grace', '100'], '--drain-grace applies to --http only'],
      [['serve', '--http', '0', '--max-queued', '4'], '--max-queued applies with --max-calls only'],
      [
        ['serve', '--http', '0', '--max-calls', '0'],
        '--max-calls takes a whole number of at least 1',
      ],
    ] as const) {
      const result = await runCli([...args]);
      expect(result.status, args.join(' ')).to.equal(2);
      expect(result.stderr).to.include(message);
    }
  });
});
