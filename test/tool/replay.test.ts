import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { expect } from 'chai';
import { firstValueFrom, lastValueFrom, of, toArray } from 'rxjs';
import { z } from 'zod';
import { createMcpServer } from '../../adapters/mcp-server/index.js';
import type { Tool, ToolCall } from '../../lib/contract.js';
import { CallContext } from '../../lib/context.js';
import { NotReplayedError } from '../../lib/errors.js';
import type { ToolRecord as RecordEntry } from '../../lib/records.js';
import { rawTool } from '../../lib/raw-tool.js';
import { idempotencyKeyOf, replayOf } from '../../lib/replay.js';
import { tool } from '../../lib/tool.js';
import { wrap } from '../../lib/wrap.js';
import { batchResults } from '../../operators/batch-results.js';
import { executeBatch } from '../../operators/execute-batch.js';
import type { ExecutionEvent, Job } from '../../operators/job.js';
import {
  endedCall,
  startedCall,
  type EndedCall,
  type StartedCall,
} from '../../operators/resume-log.js';
import { toOutputItems } from '../../operators/to-output-items.js';

/** A tool that counts its runs and keeps the idempotency key of each. */
function counted(name: string, replay?: Tool['replay']) {
  const keys: string[] = [];
  const built = tool({
    name,
    description: '',
    replay,
    execute: (_args, context) => {
      keys.push(context.call.idempotencyKey);
      return `${name} ran`;
    },
  });
  return { tool: built, keys };
}

const jobOf = (t: Tool, id: string, key?: string): Job => ({
  tool: t,
  call: key === undefined ? { id, args: '' } : { id, args: '', idempotencyKey: key },
});

describe('replay safety', () => {
  it('reads a tool replay claim, unsafe by default and whatever the MCP hints say', () => {
    const base = { name: 't', description: '', execute: () => of() };
    expect(replayOf(base)).to.equal('unsafe');
    expect(replayOf({ ...base, replay: 'safe' })).to.equal('safe');
    expect(replayOf({ ...base, replay: 'idempotent' })).to.equal('idempotent');
    expect(replayOf({ ...base, replay: 'sometimes' as never })).to.equal('unsafe');
    const hinted = { ...base, annotations: { readOnlyHint: true, idempotentHint: true } };
    expect(replayOf(hinted)).to.equal('unsafe');
    expect(replayOf(wrap(hinted, { replay: 'safe' }))).to.equal('safe');
    expect(
      replayOf(rawTool({ ...base, replay: 'idempotent', execute: () => ({ output: '' }) })),
    ).to.equal('idempotent');
  });

  it('derives the idempotency key from the call id unless the application sets one', () => {
    expect(idempotencyKeyOf({ id: 'call_1', args: '' })).to.equal('call_1');
    expect(idempotencyKeyOf({ id: 'call_1', args: '', idempotencyKey: 'k' })).to.equal('k');
    expect(idempotencyKeyOf({ id: 'call_1', args: '', idempotencyKey: '' })).to.equal('call_1');
    expect(new CallContext({ id: 'c', args: '{}' }).call).to.deep.equal({
      id: 'c',
      args: '{}',
      idempotencyKey: 'c',
    });
  });

  it('hands every tool its key on context.call, and the recorder the same call', async () => {
    const seen: (string | undefined)[] = [];
    const recorded: ToolCall[] = [];
    const typed = tool({
      name: 'typed',
      description: '',
      parameters: z.object({ n: z.number() }),
      execute: async (_args, context) => {
        seen.push(context.call.idempotencyKey);
        await context.record({ recordNS: () => 'test:handle' });
        return 'ok';
      },
    });
    const raw = rawTool({
      name: 'raw',
      description: '',
      execute: (call) => {
        seen.push(call.idempotencyKey);
        return { output: 'ok' };
      },
    });
    const plain: Tool = {
      name: 'plain',
      description: '',
      execute: (_call, context) => {
        seen.push(context.call.idempotencyKey);
        return of({ final: true, result: { output: 'ok' } });
      },
    };
    const recorder = (_record: RecordEntry, call: ToolCall) => void recorded.push(call);
    await batchResults(
      [
        { tool: typed, call: { id: 't1', args: '{"n":1}' } },
        { tool: raw, call: { id: 'r1', args: '', idempotencyKey: 'app-key' } },
        { tool: plain, call: { id: 'p1', args: '' } },
      ],
      { recorder, maxParallel: 1 },
    );
    expect(seen).to.deep.equal(['t1', 'app-key', 'p1']);
    expect(recorded.map((call) => call.idempotencyKey)).to.deep.equal(['t1']);
  });
});

describe('idempotency keys under the MCP server', () => {
  it('qualifies the derived key by the session, since request ids repeat across connections', async () => {
    const keys: string[] = [];
    const charge = tool({
      name: 'charge',
      description: '',
      execute: (_args, context) => {
        keys.push(context.call.idempotencyKey);
        return 'ok';
      },
    });
    const sessions: string[] = [];
    for (let i = 0; i < 2; i++) {
      const server = createMcpServer({ name: 'local', version: '1.0.0' }, [charge]);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client({ name: 'plain', version: '1.0.0' });
      await client.connect(clientSide);
      await client.callTool({ name: 'charge', arguments: {} });
      await client.close();
    }
    for (const key of keys) sessions.push(key.slice(0, key.lastIndexOf('/')));
    expect(keys).to.have.length(2);
    expect(keys[0].slice(sessions[0].length)).to.equal(keys[1].slice(sessions[1].length));
    expect(sessions[0]).to.not.equal(sessions[1]);
    expect(sessions[0]).to.not.equal('');
  });

  it('derives <session>/<call id> for a context in a session, and keeps a key the application set', () => {
    const session = { id: 's1' };
    expect(new CallContext({ id: '7', args: '' }, { session }).call.idempotencyKey).to.equal(
      's1/7',
    );
    const parent = new CallContext({ id: '7', args: '' }, { session });
    const inner = new CallContext({ id: '7', args: '' }, { parent });
    expect(inner.call.idempotencyKey).to.equal('s1/7');
    const keyed = { id: '7', args: '', idempotencyKey: 'k' };
    expect(new CallContext(keyed, { session }).call.idempotencyKey).to.equal('k');
  });
});

describe('executeBatch with resume', () => {
  it('reports an unsafe interrupted call as not replayed, in words the model reads', async () => {
    const charge = counted('charge');
    const jobs = [jobOf(charge.tool, 'c1')];
    const settled = await batchResults(jobs, { resume: { started: [{ callId: 'c1' }] } });
    expect(charge.keys).to.deep.equal([]);
    const [entry] = settled;
    expect('error' in entry && entry.error).to.be.instanceOf(NotReplayedError);
    expect('error' in entry && (entry.error as NotReplayedError).code).to.equal('not_replayed');
    expect(toOutputItems(jobs, settled)[0].output).to.equal(
      'Error: call "c1" was interrupted and not replayed: tool "charge" is not safe to run twice',
    );
  });

  it('replays an idempotent call under the key it ran with, and refuses it under another', async () => {
    const charge = counted('charge', 'idempotent');
    const started: StartedCall[] = [
      { callId: 'a', idempotencyKey: 'a' },
      { callId: 'b', idempotencyKey: 'turn-3/b' },
      { callId: 'c', idempotencyKey: 'turn-3/c' },
      { callId: 'd', idempotencyKey: 'turn-3/d' },
    ];
    const jobs = [
      jobOf(charge.tool, 'a'), // no key now, the derived one before: same key
      jobOf(charge.tool, 'b'), // no key now, an application key before: runs under the recorded one
      jobOf(charge.tool, 'c', 'turn-3/c'), // the same application key
      jobOf(charge.tool, 'd', 'turn-4/d'), // another application key: refused
    ];
    const settled = await batchResults(jobs, { resume: { started }, maxParallel: 1 });
    expect(charge.keys).to.deep.equal(['a', 'turn-3/b', 'turn-3/c']);
    expect(toOutputItems(jobs, settled).map((item) => item.output)).to.deep.equal([
      'charge ran',
      'charge ran',
      'charge ran',
      'Error: call "d" was interrupted and not replayed: tool "charge" runs twice only under one ' +
        'idempotency key, and the key changed from "turn-3/d" to "turn-4/d"',
    ]);
  });

  it('keeps what had finished, results and saved errors alike, without running it again', async () => {
    const read = counted('read', 'safe');
    const jobs = [jobOf(read.tool, 'ok'), jobOf(read.tool, 'failed'), jobOf(read.tool, 'new')];
    const ended: EndedCall[] = JSON.parse(
      JSON.stringify([
        endedCall({ index: 0, callId: 'ok', final: true, result: { output: 'kept' } }),
        endedCall({
          index: 1,
          callId: 'failed',
          final: true,
          error: new NotReplayedError('x', 'y', 'z'),
        }),
      ]),
    ) as EndedCall[];
    const settled = await batchResults(jobs, { resume: { ended, started: [] } });
    expect(read.keys).to.deep.equal(['new']);
    expect(settled[0]).to.deep.equal({ result: { output: 'kept' } });
    const failure = 'error' in settled[1] ? settled[1].error : undefined;
    expect(failure?.message).to.equal('call "x" was interrupted and not replayed: z');
    expect((failure as { code?: string }).code).to.equal('not_replayed');
    expect(settled[2]).to.deep.equal({ result: { output: 'read ran' } });
  });

  it('skips progress events and entries of calls the batch does not have', async () => {
    const read = counted('read', 'safe');
    const ended: EndedCall[] = [
      { callId: 'a', final: false, result: { output: 'half' } },
      { callId: 'zz', final: true, result: { output: 'other batch' } },
    ];
    const settled = await batchResults([jobOf(read.tool, 'a')], { resume: { ended } });
    expect(settled).to.deep.equal([{ result: { output: 'read ran' } }]);
  });

  it('refuses a malformed log with a one-line TypeError before running anything', () => {
    const read = counted('read', 'safe');
    const jobs = [jobOf(read.tool, 'a')];
    const bad = { started: [{ id: 'a' } as unknown as StartedCall] };
    expect(() => executeBatch(jobs, { resume: bad })).to.throw(
      TypeError,
      'resume: every started entry needs a string callId',
    );
    const empty = { ended: [{ callId: 'a', final: true }] };
    expect(() => executeBatch(jobs, { resume: empty })).to.throw(
      TypeError,
      'resume: ended call "a" has neither result nor error',
    );
    expect(read.keys).to.deep.equal([]);
  });

  it('continues a batch that crashed mid-run without doing a side effect twice', async () => {
    // The earlier run: onStart writes each start down, each final is written as it comes; the
    // process "crashes" (the subscription ends) while two calls are running and one waits.
    const runs: string[] = [];
    const hold = new Promise<never>(() => undefined);
    const slow = (name: string, replay: Tool['replay'], hang: () => boolean) =>
      tool({
        name,
        description: '',
        replay,
        execute: async () => {
          runs.push(name);
          if (hang()) await hold;
          return `${name} done`;
        },
      });
    let crashed = false;
    const lookup = slow('lookup', 'safe', () => false);
    const search = slow('search', 'safe', () => !crashed);
    const pay = slow('pay', 'unsafe', () => !crashed);
    const mail = slow('mail', 'unsafe', () => false);
    const jobs = [jobOf(lookup, 'l'), jobOf(search, 's'), jobOf(pay, 'p'), jobOf(mail, 'm')];
    const started: StartedCall[] = [];
    const ended: EndedCall[] = [];
    const events: ExecutionEvent[] = [];
    const first = executeBatch(jobs, {
      maxParallel: 2,
      onStart: (job) => void started.push(startedCall(job)),
    }).subscribe((event) => {
      events.push(event);
      const entry = endedCall(event);
      if (entry !== undefined) ended.push(entry);
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    first.unsubscribe();
    crashed = true;
    expect(runs).to.deep.equal(['lookup', 'search', 'pay']);
    expect(ended.map((entry) => entry.callId)).to.deep.equal(['l']);

    const log = JSON.parse(JSON.stringify({ started, ended })) as {
      started: StartedCall[];
      ended: EndedCall[];
    };
    const resumed = await lastValueFrom(executeBatch(jobs, { resume: log }).pipe(toArray()));
    expect(runs).to.deep.equal(['lookup', 'search', 'pay', 'search', 'mail']);
    const finals = resumed.map((event) => [
      event.index,
      event.error?.message ?? event.result?.output,
    ]);
    expect(finals).to.deep.equal([
      [0, 'lookup done'],
      [2, 'call "p" was interrupted and not replayed: tool "pay" is not safe to run twice'],
      [1, 'search done'],
      [3, 'mail done'],
    ]);
    expect(await firstValueFrom(executeBatch([], { resume: log }).pipe(toArray()))).to.deep.equal(
      [],
    );
  });
});
