import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { expect } from 'chai';
import { lastValueFrom, Observable, of, throwError, toArray } from 'rxjs';
import { z } from 'zod';
import { connectMcp, RemoteToolError } from '../../adapters/mcp-client/index.js';
import { createMcpServer } from '../../adapters/mcp-server/index.js';
import {
  rawTool,
  textResult,
  TimeoutError,
  tool,
  ToolPanicError,
  type Tool,
  type ToolEvent,
} from '../../index.js';
import {
  executeBatch,
  executeCalls,
  type ExecutionEvent,
  type Job,
} from '../../operators/index.js';
import { from } from 'rxjs';
import { scaled } from '../support/time.js';

/** What each faulty tool must end with: the error's class and message. */
interface Fault {
  tool: Tool;
  error: new (...args: never[]) => Error;
  message: string | RegExp;
}

const TIMEOUT = 150;
const torn: string[] = [];
const aborted: string[] = [];

function faults(): Fault[] {
  const circular: { self?: unknown } = {};
  circular.self = circular;
  return [
    {
      tool: tool({
        name: 'throws_sync',
        description: '',
        execute: () => {
          throw new Error('sync boom');
        },
      }),
      error: Error,
      message: 'sync boom',
    },
    {
      tool: tool({
        name: 'rejects',
        description: '',
        execute: async () => {
          await Promise.resolve();
          throw new RangeError('async boom');
        },
      }),
      error: RangeError,
      message: 'async boom',
    },
    {
      tool: tool({
        name: 'observable_errors',
        description: '',
        execute: () =>
          new Observable<string>((s) => {
            s.next('half way');
            setTimeout(() => s.error(new Error('stream broke')), 5);
          }),
      }),
      error: Error,
      message: 'stream broke',
    },
    {
      tool: rawTool({
        name: 'emits_after_final',
        description: '',
        execute: () =>
          new Observable<ToolEvent>((s) => {
            setTimeout(() => {
              s.next({ final: true, result: textResult('first final') });
              s.next({ final: true, result: textResult('second final') });
              s.next({ final: false, result: textResult('late progress') });
              s.error(new Error('late error'));
            }, 5);
            return () => torn.push('emits_after_final');
          }),
      }),
      error: Error, // not an error: the first final stands
      message: '',
    },
    {
      tool: tool({
        name: 'never_completes',
        description: '',
        execute: (_args, context) =>
          new Observable<string>(() => {
            context.signal.addEventListener('abort', () => aborted.push('never_completes'));
            return () => torn.push('never_completes');
          }),
      }),
      error: TimeoutError,
      message: `call timed out after ${TIMEOUT} ms`,
    },
    {
      tool: tool({
        name: 'never_resolves',
        description: '',
        execute: (_args, context) =>
          new Promise<string>(() => {
            context.signal.addEventListener('abort', () => aborted.push('never_resolves'));
          }),
      }),
      error: TimeoutError,
      message: `call timed out after ${TIMEOUT} ms`,
    },
    {
      tool: tool({
        name: 'throws_string',
        description: '',
        execute: () => {
          throw 'a string';
        },
      }),
      error: ToolPanicError,
      message: 'tool "throws_string" panicked: a string',
    },
    {
      tool: tool({
        name: 'rejects_number',
        description: '',
        execute: () => Promise.reject(42),
      }),
      error: ToolPanicError,
      message: 'tool "rejects_number" panicked: 42',
    },
    {
      tool: rawTool({
        name: 'errors_object',
        description: '',
        execute: () => throwError(() => ({ reason: 'not an error' })),
      }),
      error: ToolPanicError,
      message: /^tool "errors_object" panicked: /,
    },
    {
      tool: {
        name: 'execute_throws',
        description: '',
        execute: () => {
          throw new TypeError('before any observable');
        },
      },
      error: ToolPanicError,
      message: 'tool "execute_throws" panicked: before any observable',
    },
    {
      tool: {
        name: 'returns_null',
        description: '',
        execute: () => null as unknown as Observable<ToolEvent>,
      },
      error: ToolPanicError,
      message: /^tool "returns_null" panicked: /,
    },
    {
      tool: rawTool({
        name: 'completes_without_final',
        description: '',
        execute: () => of<ToolEvent>({ final: false, result: textResult('only progress') }),
      }),
      error: ToolPanicError,
      message: 'tool "completes_without_final" panicked: completed without a final event',
    },
    {
      tool: tool({
        name: 'returns_circular',
        description: '',
        execute: () => circular,
      }),
      error: TypeError,
      message: /circular/i,
    },
  ];
}

const ok = (i: number): Tool =>
  tool({
    name: `ok_${i}`,
    description: '',
    parameters: z.object({ n: z.number().int() }),
    async *execute({ n }) {
      yield `step of ${n}`;
      return n * 2;
    },
  });

const isFine = (f: Fault): boolean => f.message === '';

/** Checks every job got exactly one final, last of its events, and returns the finals by index. */
function finals(events: readonly ExecutionEvent[], jobs: number): ExecutionEvent[] {
  const byIndex: ExecutionEvent[][] = Array.from({ length: jobs }, () => []);
  for (const event of events) byIndex[event.index]!.push(event);
  return byIndex.map((own, index) => {
    const last = own.at(-1);
    expect(
      own.filter((e) => e.final),
      `job ${index}`,
    ).to.have.length(1);
    expect(last?.final, `job ${index} ends with its final`).to.equal(true);
    expect(last!.result === undefined, `job ${index}: one of result and error`).to.equal(
      last!.error !== undefined,
    );
    return last!;
  });
}

function expectOutcome(final: ExecutionEvent, fault: Fault): void {
  if (isFine(fault)) {
    expect(final.error, fault.tool.name).to.equal(undefined);
    expect(final.result?.output).to.equal('first final');
    return;
  }
  expect(final.error, fault.tool.name).to.be.instanceOf(fault.error);
  if (typeof fault.message === 'string') expect(final.error!.message).to.equal(fault.message);
  else expect(final.error!.message).to.match(fault.message);
  if (fault.error === ToolPanicError) expect(final.error!.message).to.not.include('\n');
}

describe('reliability: every kind of tool fault in one batch', function () {
  this.timeout(scaled(10_000));
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  before(() => process.on('unhandledRejection', onUnhandled));
  after(() => process.off('unhandledRejection', onUnhandled));
  beforeEach(() => {
    torn.length = 0;
    aborted.length = 0;
    unhandled.length = 0;
  });

  /** Faults interleaved with good calls: job 2k is a good one, job 2k+1 the k-th fault. */
  function mixed(): { jobs: Job[]; faultAt: Map<number, Fault> } {
    const jobs: Job[] = [];
    const faultAt = new Map<number, Fault>();
    faults().forEach((fault, k) => {
      jobs.push({ tool: ok(k), call: { id: `ok${k}`, args: `{"n":${k}}` } });
      faultAt.set(jobs.length, fault);
      jobs.push({ tool: fault.tool, call: { id: fault.tool.name, args: '' } });
    });
    jobs.push({ tool: ok(99), call: { id: 'last', args: '{"n":99}' } });
    return { jobs, faultAt };
  }

  for (const maxParallel of [3, 100]) {
    it(`ends each fault as one final event and leaves the siblings alone (maxParallel ${maxParallel})`, async () => {
      const { jobs, faultAt } = mixed();
      const events = await lastValueFrom(
        executeBatch(jobs, { maxParallel, timeout: TIMEOUT }).pipe(toArray()),
      );
      const ends = finals(events, jobs.length);
      ends.forEach((final, index) => {
        const fault = faultAt.get(index);
        if (fault !== undefined) return expectOutcome(final, fault);
        expect(final.error, `job ${index}`).to.equal(undefined);
        const n = JSON.parse(jobs[index]!.call.args).n as number;
        expect(final.result?.output).to.equal(String(n * 2));
        expect(events.filter((e) => e.index === index && !e.final)).to.have.length(1);
      });
      expect(events.some((e) => e.result?.output === 'late progress')).to.equal(false);
      expect(torn).to.have.members(['emits_after_final', 'never_completes']);
      expect(aborted).to.have.members(['never_completes', 'never_resolves']);
      expect(unhandled).to.deep.equal([]);
    });
  }

  it('does the same for calls arriving one by one through executeCalls', async () => {
    const { jobs, faultAt } = mixed();
    const events = await lastValueFrom(
      from(jobs).pipe(executeCalls({ timeout: TIMEOUT }), toArray()),
    );
    finals(events, jobs.length).forEach((final, index) => {
      const fault = faultAt.get(index);
      if (fault !== undefined) expectOutcome(final, fault);
      else expect(final.error).to.equal(undefined);
    });
    expect(unhandled).to.deep.equal([]);
  });

  it('serves the same tools over MCP: each fault is an isError result, siblings unaffected', async () => {
    const served = faults().filter((f) => f.error !== TimeoutError);
    const tools = [...served.map((f) => f.tool), ok(0)];
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer({ name: 'faulty', version: '1' }, tools).connect(serverSide);
    const remote = await connectMcp(clientSide);
    try {
      const jobs: Job[] = remote.tools.map((t) => ({
        tool: t,
        call: { id: t.name, args: t.name === 'ok_0' ? '{"n":21}' : '' },
      }));
      const ends = finals(
        await lastValueFrom(executeBatch(jobs, { maxParallel: 100 }).pipe(toArray())),
        jobs.length,
      );
      ends.forEach((final, index) => {
        const name = jobs[index]!.tool.name;
        const fault = served.find((f) => f.tool.name === name);
        if (fault === undefined) return expect(final.result?.output).to.equal('42');
        if (isFine(fault)) return expect(final.result?.output).to.equal('first final');
        expect(final.error, name).to.be.instanceOf(RemoteToolError);
        expect(final.error!.message, name).not.to.match(/^Error: /); // toOutputItems puts it back once
        expect(final.error!.message, 'no stack reaches the model').to.not.match(/\n\s+at /);
      });
      expect(unhandled).to.deep.equal([]);
    } finally {
      await remote.close();
    }
  });
});
