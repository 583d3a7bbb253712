import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { reaped } from '../support/reaper.js';
import { join } from 'node:path';
import { lastValueFrom } from 'rxjs';
import { connectMcp, McpCallError } from '../../adapters/mcp-client/index.js';
import { CallContext } from '../../index.js';
import { executeBatch, type ExecutionEvent, type Job } from '../../operators/index.js';
import { root } from '../support/cli.js';
import { lines } from '../support/lines.js';
import { initializeRequest } from '../support/mcp-messages.js';
import { scaled } from '../support/time.js';

const faultServer = join(import.meta.dirname, '..', 'fixtures', 'mcp-fault-server.mjs');
const hangServer = join(import.meta.dirname, '..', 'fixtures', 'hang-stdio-server.ts');

describe('reliability: an MCP peer that goes away mid-call', function () {
  this.timeout(scaled(30_000));

  it('a server killed mid-call fails its waiting calls within a second and keeps every answer given', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [faultServer],
      stderr: 'ignore',
    });
    const remote = await connectMcp(transport);
    let listCompleted = false;
    remote.tools$.subscribe({ complete: () => (listCompleted = true) });
    const named = (name: string) => remote.tools.find((t) => t.name === name)!;
    const jobs: Job[] = [];
    for (let i = 0; i < 12; i++) {
      const name = i % 3 === 2 ? 'wait' : 'quick';
      jobs.push({ tool: named(name), call: { id: `${name}${i}`, args: '' } });
    }
    // Every quick call has its answer, every wait call is still waiting: then the server dies.
    let killedAt = 0;
    const all: ExecutionEvent[] = [];
    const lastFinalAt = await new Promise<number>((resolve) => {
      let quick = 0;
      executeBatch(jobs, { maxParallel: 12 }).subscribe({
        next: (event) => {
          all.push(event);
          if (!event.final || !event.callId.startsWith('quick') || ++quick < 8) return;
          killedAt = Date.now();
          process.kill(transport.pid!, 'SIGKILL');
        },
        complete: () => resolve(Date.now()),
      });
    });
    expect(killedAt).to.be.above(0);
    expect(lastFinalAt - killedAt, 'ms from the kill to the last final').to.be.below(1_000);

    const finals = all.filter((e) => e.final);
    expect(finals).to.have.length(12);
    for (const final of finals) {
      if (final.callId.startsWith('quick')) {
        expect(final.result?.output, final.callId).to.equal('quick');
      } else {
        expect(final.error, final.callId).to.be.instanceOf(McpCallError);
        expect(final.error!.message).to.match(/^mcp: call "wait": connection closed/);
      }
    }
    expect(remote.closed).to.equal(true);
    expect(listCompleted).to.equal(true);
    const call = { id: 'after', args: '' };
    const after = await lastValueFrom(named('quick').execute(call, new CallContext(call))).then(
      () => undefined,
      (err: Error) => err.message,
    );
    expect(after).to.equal('mcp: connection closed');
    await remote.close();
  });

  it('a stdio client that closes mid-call cancels the served call', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', hangServer],
      cwd: root,
      stderr: 'pipe',
    });
    const stderr = lines(transport.stderr!);
    const remote = await connectMcp(transport);
    try {
      const call = { id: 'h1', args: '' };
      let failure: Error | undefined;
      remote.tools[0]!.execute(call, new CallContext(call)).subscribe({
        error: (e: Error) => (failure = e),
      });
      const id = (await stderr.seen('started ')).slice('started '.length);
      await remote.close();
      expect(failure?.message).to.equal('mcp: connection closed');
      await stderr.seen(`torn down ${id}`);
      expect(stderr.text()).to.include(`aborted ${id}\n`);
    } finally {
      await remote.close();
    }
  });

  it('a stdio server whose client vanishes without a word cancels the call and exits by itself', async () => {
    const server = reaped(
      spawn(process.execPath, ['--import', 'tsx', hangServer], {
        cwd: root,
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );
    try {
      const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
      const stderr = lines(server.stderr);
      const stdout = lines(server.stdout);
      const send = (message: object): void =>
        void server.stdin.write(`${JSON.stringify(message)}\n`);
      send(initializeRequest);
      await stdout.seen('{');
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'hang', arguments: {} },
      });
      await stderr.seen('started 7');
      const vanished = Date.now();
      server.stdin.destroy();
      await stderr.seen('torn down 7');
      expect(stderr.text()).to.include('aborted 7\n');
      expect(await exited).to.equal(0);
      expect(Date.now() - vanished, 'ms until the server exited').to.be.below(2_000);
      expect(stdout.text()).to.not.include('"id":7');
    } finally {
      server.kill('SIGKILL');
    }
  });
});
