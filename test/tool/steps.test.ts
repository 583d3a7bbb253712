import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { lastValueFrom, of, toArray } from 'rxjs';
import { z } from 'zod';
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { connectMcp } from '../../adapters/mcp-client/index.js';
import { createMcpServer } from '../../adapters/mcp-server/index.js';
import type { Tool, ToolContext } from '../../lib/contract.js';
import { CallContext } from '../../lib/context.js';
import { argsHash } from '../../lib/args-hash.js';
import { NotReplayedError } from '../../lib/errors.js';
import type { ToolRecord } from '../../lib/records.js';
import { registerSteps, STEP_NS } from '../../lib/steps.js';
import { tool } from '../../lib/tool.js';
import { wrap } from '../../lib/wrap.js';
import { batchResults } from '../../operators/batch-results.js';
import { executeBatch } from '../../operators/execute-batch.js';
import type { BatchOptions } from '../../operators/resume-log.js';
import { recordedCall, type RecordedCall } from '../../operators/resume-log.js';
import { root } from '../support/cli.js';

const execFileAsync = promisify(execFile);

/** A tool of two steps, "download" and "unpack", that counts each step's runs. */
function stepping(replay: Tool['replay'] = 'safe', fail?: string) {
  const ran: string[] = [];
  const seen: ToolContext['resumed'][] = [];
  const built = tool({
    name: 'fetch',
    description: '',
    replay,
    parameters: z.object({}),
    async execute(_args, context) {
      seen.push(context.resumed);
      const file = await context.step('download', () => {
        ran.push('download');
        return { path: '/tmp/a.tgz', bytes: 10 };
      });
      context.progress({ progress: 1, total: 2 });
      const dir = await context.step('unpack', async () => {
        ran.push('unpack');
        if (fail === 'unpack') throw new Error('disk full');
        return `${file.path}.d`;
      });
      return `${dir} (${file.bytes} bytes)`;
    },
  });
  return { tool: built, ran, seen };
}

const job = (t: Tool, id = 'c1') => ({ tool: t, call: { id, args: '' } });

/** A recorder writing entries as an application would for `resume`. */
function journal() {
  const recorded: RecordedCall[] = [];
  const recorder = (record: ToolRecord, call: { id: string; args: string }) =>
    void recorded.push(recordedCall(record, call));
  return { recorded, recorder };
}

const stepRecord = (step: string, value: unknown, progress?: unknown) => ({
  ns: STEP_NS,
  data: JSON.stringify({ step, value, progress }),
});

registerSteps(); // as the Node entry does

describe('context.step', () => {
  it('records each finished step once, with the progress it commits, and the call goes on', async () => {
    const { tool: fetch, ran } = stepping();
    const { recorded, recorder } = journal();
    const [settled] = await batchResults([job(fetch)], { recorder });
    expect(settled!.result?.output).to.equal('/tmp/a.tgz.d (10 bytes)');
    expect(ran).to.deep.equal(['download', 'unpack']);
    // Each entry names its call by id and by the hash of its arguments ("" is {}).
    const hash = argsHash('{}');
    expect(recorded).to.deep.equal([
      {
        callId: 'c1',
        record: stepRecord('download', { path: '/tmp/a.tgz', bytes: 10 }),
        argsHash: hash,
      },
      {
        callId: 'c1',
        record: stepRecord('unpack', '/tmp/a.tgz.d', { progress: 1, total: 2 }),
        argsHash: hash,
      },
    ]);
  });

  it('runs without a recorder, and a step resolves with its value as JSON gives it back', async () => {
    const values: unknown[] = [];
    const dated = tool({
      name: 'dated',
      description: '',
      async execute(_args, context) {
        values.push(await context.step('when', () => new Date(0)));
        values.push(await context.step('nothing', () => undefined));
        values.push(await context.step('stream', () => of(1, 2, 3)));
        return 'ok';
      },
    });
    const [settled] = await batchResults([job(dated)]);
    expect(settled!.result?.output).to.equal('ok');
    expect(values).to.deep.equal(['1970-01-01T00:00:00.000Z', undefined, 3]);
  });

  it('skips the steps a resumed call finished before and runs the rest', async () => {
    const { tool: fetch, ran, seen } = stepping();
    const resume: BatchOptions['resume'] = {
      started: [{ callId: 'c1' }],
      recorded: [{ callId: 'c1', record: stepRecord('download', { path: '/d', bytes: 7 }) }],
    };
    const { recorded, recorder } = journal();
    const [settled] = await batchResults([job(fetch)], { resume, recorder });
    expect(settled!.result?.output).to.equal('/d.d (7 bytes)');
    expect(ran).to.deep.equal(['unpack']);
    expect(seen).to.deep.equal([{ steps: ['download'], progress: undefined }]);
    expect(recorded.map((entry) => JSON.parse(entry.record.data).step)).to.deep.equal(['unpack']);
  });

  it('gives a resumed call the progress its last finished step committed', async () => {
    const { tool: fetch, ran, seen } = stepping();
    const resume: BatchOptions['resume'] = {
      recorded: [
        { callId: 'c1', record: stepRecord('download', { path: '/d', bytes: 7 }) },
        { callId: 'c1', record: stepRecord('unpack', '/d.d', { progress: 1, total: 2 }) },
      ],
    };
    const [settled] = await batchResults([job(fetch)], { resume });
    expect(settled!.result?.output).to.equal('/d.d (7 bytes)');
    expect(ran).to.deep.equal([]);
    expect(seen).to.deep.equal([
      { steps: ['download', 'unpack'], progress: { progress: 1, total: 2 } },
    ]);
  });

  it('commits a progress update once: a later step without a newer one records none', async () => {
    const seen: ToolContext['resumed'][] = [];
    const counting = tool({
      name: 'count',
      description: '',
      replay: 'safe',
      async execute(_args, context) {
        seen.push(context.resumed);
        context.progress('half');
        await context.step('one', () => 1);
        await context.step('two', () => 2);
        context.progress({ progress: 3 });
        return 'counted';
      },
    });
    const { recorded, recorder } = journal();
    await batchResults([job(counting)], { recorder });
    expect(recorded.map((entry) => entry.record)).to.deep.equal([
      stepRecord('one', 1, 'half'),
      stepRecord('two', 2),
    ]);
    await batchResults([job(counting)], { resume: { recorded } });
    expect(seen[1]).to.deep.equal({ steps: ['one', 'two'], progress: 'half' });
  });

  it("takes only the call's own steps: a server's (remote) and other calls' run again", async () => {
    const { tool: fetch, ran } = stepping();
    const resume: BatchOptions['resume'] = {
      recorded: [
        { callId: 'c1', record: { ...stepRecord('download', 1), remote: 'ops' } },
        { callId: 'c2', record: stepRecord('unpack', 'x') },
      ],
    };
    await batchResults([job(fetch)], { resume });
    expect(ran).to.deep.equal(['download', 'unpack']);
  });

  it("a step that throws is not recorded, and its error is the call's", async () => {
    const { tool: fetch, ran } = stepping('safe', 'unpack');
    const { recorded, recorder } = journal();
    const [settled] = await batchResults([job(fetch)], { recorder });
    expect(settled!.error?.message).to.equal('disk full');
    expect(ran).to.deep.equal(['download', 'unpack']);
    expect(recorded.map((entry) => JSON.parse(entry.record.data).step)).to.deep.equal(['download']);
  });

  it('names the finished steps of a call it does not run again; other calls read as before', async () => {
    const { tool: fetch, ran } = stepping('unsafe');
    const other = stepping('unsafe');
    const resume: BatchOptions['resume'] = {
      recorded: [
        { callId: 'c1', record: stepRecord('download', 1) },
        { callId: 'c1', record: { ns: 'shell:process-group', data: '{"pgid":1}' } },
        { callId: 'c1', record: stepRecord('unpack', 2) },
      ],
    };
    const settled = await batchResults([job(fetch), job(other.tool, 'c2')], { resume });
    expect(ran).to.deep.equal([]);
    expect(settled.map((s) => s.error?.message)).to.deep.equal([
      'call "c1" was interrupted after steps "download", "unpack" and not replayed: tool "fetch" is not safe to run twice',
      'call "c2" was interrupted and not replayed: tool "fetch" is not safe to run twice',
    ]);
    expect(settled[0]!.error).to.be.instanceOf(NotReplayedError);
    const one = await batchResults([job(fetch)], {
      resume: { recorded: [{ callId: 'c1', record: stepRecord('download', 1) }] },
    });
    expect(one[0]!.error?.message).to.equal(
      'call "c1" was interrupted after step "download" and not replayed: tool "fetch" is not safe to run twice',
    );
  });

  it('registers once: a second registerSteps() changes nothing, and progress is reported once', async () => {
    registerSteps();
    const reported = tool({
      name: 'reported',
      description: '',
      async execute(_args, context) {
        context.progress('one');
        await context.step('a', () => 1);
        return 'done';
      },
    });
    const { recorded, recorder } = journal();
    const events = await lastValueFrom(executeBatch([job(reported)], { recorder }).pipe(toArray()));
    expect(events.filter((event) => !event.final)).to.have.length(1);
    expect(recorded.map((entry) => entry.record)).to.deep.equal([stepRecord('a', 1, 'one')]);
  });

  it('keeps a step name to one step a call, and frees the name of a step that failed', async () => {
    const context = new CallContext({ id: 'c1', args: '' });
    expect(await context.step('a', () => 1)).to.equal(1);
    let again = 0;
    await expectRejection(
      context.step('a', () => ++again),
      TypeError,
      'step "a" is already a step of call "c1": a call\'s step names are unique',
    );
    expect(again).to.equal(0);
    // A step that failed was not recorded, and a second try may take its name.
    await expectRejection(
      context.step('b', () => Promise.reject(new Error('timed out'))),
      Error,
      'timed out',
    );
    expect(await context.step('b', () => 'second try')).to.equal('second try');
  });

  it('refuses bad names, a missing function and values that are not JSON, with one line each', async () => {
    const context = new CallContext({ id: 'c1', args: '' });
    const cases: [unknown, unknown, string][] = [
      ['', () => 1, 'step: step name "": 1 to 128 characters'],
      ['x'.repeat(129), () => 1, `step: step name "${'x'.repeat(40)}...": 1 to 128 characters`],
      ['a\nb', () => 1, 'step: step name "a\\nb": no control characters'],
      [7, () => 1, 'step: a step name must be a string, got number'],
      ['no-fn', 'value', 'step "no-fn": fn must be a function'],
      ['big', () => 1n, 'step "big": its value is not JSON: Do not know how to serialize a BigInt'],
      ['fn', () => () => 1, 'step "fn": its value is not JSON: a function'],
      ['empty', () => of(), 'step "empty": its observable completed without a value'],
    ];
    for (const [name, fn, message] of cases)
      await expectRejection(context.step(name as string, fn as () => 1), TypeError, message);
  });

  it('a step runs inside a wrapped tool too (its records through the runner)', async () => {
    const { tool: fetch, ran, seen } = stepping();
    const wrapped = wrap(fetch, { description: 'wrapped' });
    const resume: BatchOptions['resume'] = {
      recorded: [{ callId: 'c1', record: stepRecord('download', { path: '/w', bytes: 1 }) }],
    };
    const { recorded, recorder } = journal();
    const [settled] = await batchResults([job(wrapped)], { resume, recorder });
    expect(settled!.result?.output).to.equal('/w.d (1 bytes)');
    expect(ran).to.deep.equal(['unpack']);
    expect(seen).to.deep.equal([{ steps: ['download'], progress: undefined }]);
    expect(recorded).to.have.length(1);
  });

  it('a record that cannot be written leaves the step unrecorded: its value stands, one report', async () => {
    const { tool: fetch, ran } = stepping();
    const reports: string[] = [];
    const original = console.error;
    console.error = (line: string) => void reports.push(line);
    try {
      const [failing] = await batchResults([job(fetch)], {
        recorder: () => Promise.reject(new Error('disk full')),
      });
      expect(failing!.result?.output).to.equal('/tmp/a.tgz.d (10 bytes)');
      const [capped] = await batchResults([job(fetch, 'c2')], {
        recorder: () => undefined,
        maxRecords: 1,
      });
      expect(capped!.result?.output).to.equal('/tmp/a.tgz.d (10 bytes)');
    } finally {
      console.error = original;
    }
    expect(ran).to.deep.equal(['download', 'unpack', 'download', 'unpack']);
    expect(reports).to.deep.equal([
      'agenttool: step "download" of call "c1" was not recorded (disk full): a resumed run runs it again',
      'agenttool: step "unpack" of call "c1" was not recorded (disk full): a resumed run runs it again',
      'agenttool: step "unpack" of call "c2" was not recorded (record: past the call\'s 1 records (maxRecords), not written): a resumed run runs it again',
    ]);
  });

  it("a served tool's steps reach an MCP client as its records, marked remote", async () => {
    const { tool: fetch } = stepping();
    const server = createMcpServer({ name: 'ops', version: '1.0.0' }, [fetch]);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const remote = await connectMcp(clientSide);
    try {
      const { recorded, recorder } = journal();
      const [settled] = await batchResults([job(remote.tools[0]!)], { recorder });
      expect(settled!.result?.output).to.equal('/tmp/a.tgz.d (10 bytes)');
      expect(recorded.map((entry) => [entry.record.ns, entry.record.remote])).to.deep.equal([
        [STEP_NS, 'ops'],
        [STEP_NS, 'ops'],
      ]);
    } finally {
      await remote.close();
    }
  });
});

async function expectRejection(
  promise: Promise<unknown>,
  type: new (...args: never[]) => Error,
  message: string,
): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).to.be.instanceOf(type);
  expect((err as Error).message).to.equal(message);
}

describe('context.step without registerSteps (a browser bundle that did not call it)', () => {
  it('refuses the step, saying what to call, and never runs its function', async () => {
    // A process that loads the context alone, as a bundle of the browser entry does.
    const script = `
      import { CallContext } from './lib/context.ts';
      let ran = false;
      const context = new CallContext({ id: 'c1', args: '' });
      context.step('load', () => { ran = true; return 1; }).then(
        () => console.log('resolved'),
        (err) => console.log(JSON.stringify({ message: err.message, ran })),
      );`;
    const { stdout } = await execFileAsync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: root },
    );
    expect(JSON.parse(stdout)).to.deep.equal({
      message: `context.step("load"): steps are not installed in this bundle; call registerSteps() from 'agenttool' once (docs/records.md)`,
      ran: false,
    });
  });
});
