import { expect } from 'chai';
import { lastValueFrom, map, of, toArray } from 'rxjs';
import { z } from 'zod';
import { NotApprovedError } from '../lib/errors.js';
import { tool } from '../lib/tool.js';
import { settledOf } from '../operators/settled-of.js';
import { executeBatch } from '../operators/execute-batch.js';
import { executeCalls } from '../operators/execute-calls.js';
import type { Approval, ExecutionEvent, Job } from '../operators/job.js';
import { toOutputItems } from '../operators/to-output-items.js';
import { turnItems } from '../operators/turn-items.js';
import { DETACHED_OUTPUT } from '../operators/detached-output.js';
import { toToolMessages } from '../operators/chat-completions.js';
import { toToolResults } from '../operators/anthropic-messages.js';
import { stubTool } from '../testing/index.js';
import { testScheduler, toolEvents } from './support.js';

/** A tool that lists a folder, recording the arguments each call ran with. */
function lister(seen: unknown[], resource?: (args: { path: string }) => string) {
  return tool({
    name: 'list',
    description: 'Lists a folder',
    parameters: z.object({ path: z.string(), limit: z.number().int().min(1).max(100) }),
    execute: (args) => {
      seen.push(args);
      return `listed ${args.path} (${args.limit})`;
    },
    ...(resource === undefined ? {} : { resource }),
  });
}

const ARGS = '{"path":"/","limit":10}';

function listJob(id: string, seen: unknown[], args = ARGS): Job {
  return { tool: lister(seen), call: { id, args } };
}

async function run(jobs: Job[], approve: (job: Job) => unknown): Promise<ExecutionEvent[]> {
  return lastValueFrom(
    executeBatch(jobs, { approve: approve as (job: Job) => Approval }).pipe(toArray()),
  );
}

function finals(events: ExecutionEvent[]) {
  return events.filter((event) => event.final);
}

describe('executeBatch: what a person adds to an approval', () => {
  it("carries an approval's note on the final event and into the call's output item", async () => {
    const seen: unknown[] = [];
    const jobs = [listJob('c1', seen)];
    const approve = () => ({ approved: true, note: 'ok, but only the test folder' });
    const [final] = finals(await run(jobs, approve));
    expect(final).to.deep.equal({
      index: 0,
      callId: 'c1',
      final: true,
      result: { output: 'listed / (10)' },
      note: 'ok, but only the test folder',
    });
    expect(seen).to.deep.equal([{ path: '/', limit: 10 }]);
    expect(toOutputItems(jobs, [settledOf(final as never)])).to.deep.equal([
      {
        type: 'function_call_output',
        call_id: 'c1',
        output:
          'listed / (10)\n\n[Note from the person who reviewed this call: ok, but only the test folder]',
      },
    ]);
  });

  it("carries a refusal's note on the final event and after the error the model reads", async () => {
    const seen: unknown[] = [];
    const jobs = [listJob('c1', seen)];
    const approve = () => ({ approved: false, reason: 'not today', note: 'try the cache first' });
    const [final] = finals(await run(jobs, approve));
    expect(final?.error).to.be.instanceOf(NotApprovedError);
    expect(final?.error?.message).to.equal('not today');
    expect((final?.error as NotApprovedError).note).to.equal('try the cache first');
    expect(final?.note).to.equal('try the cache first');
    expect(seen).to.deep.equal([]);
    const settled = [settledOf(final as never)];
    expect(toOutputItems(jobs, settled)[0]?.output).to.equal(
      'Error: not today\n\n[Note from the person who reviewed this call: try the cache first]',
    );
    // The other formats read the same words.
    expect(toToolMessages(jobs, settled)[0]?.content).to.equal(
      'Error: not today\n\n[Note from the person who reviewed this call: try the cache first]',
    );
    expect(JSON.stringify(toToolResults(jobs, settled)[0])).to.include('try the cache first');
  });

  it('refuses with only a note: the default message, the note beside it', async () => {
    const jobs = [listJob('c1', [])];
    const [final] = finals(await run(jobs, () => ({ approved: false, note: 'use staging' })));
    expect(final?.error?.message).to.equal('call "c1" was not approved');
    expect(final?.note).to.equal('use staging');
  });

  it('runs the call with the arguments the person corrected, and tells the model which', async () => {
    const seen: unknown[] = [];
    const jobs = [listJob('c1', seen)];
    const approve = () => ({ approved: true, args: { path: '/srv/test', limit: 5 } });
    const [final] = finals(await run(jobs, approve));
    expect(seen).to.deep.equal([{ path: '/srv/test', limit: 5 }]);
    expect(final?.result?.output).to.equal('listed /srv/test (5)');
    expect(final?.editedArgs).to.equal('{"path":"/srv/test","limit":5}');
    expect(final?.callId).to.equal('c1');
    expect(toOutputItems(jobs, [settledOf(final as never)])[0]?.output).to.equal(
      'listed /srv/test (5)\n\n[The person who approved this call edited its arguments; it ran with {"path":"/srv/test","limit":5}]',
    );
    // The job the application holds is not changed.
    expect(jobs[0]?.call.args).to.equal(ARGS);
  });

  it('takes edited arguments as JSON text, with a note', async () => {
    const seen: unknown[] = [];
    const jobs = [listJob('c1', seen)];
    const approve = () =>
      Promise.resolve({ approved: true, args: '{"path":"/tmp","limit":1}', note: 'smaller' });
    const [final] = finals(await run(jobs, approve));
    expect(seen).to.deep.equal([{ path: '/tmp', limit: 1 }]);
    expect(toOutputItems(jobs, [settledOf(final as never)])[0]?.output).to.equal(
      'listed /tmp (1)\n\n' +
        '[The person who approved this call edited its arguments; it ran with {"path":"/tmp","limit":1}]\n' +
        '[Note from the person who reviewed this call: smaller]',
    );
  });

  it("refuses edited arguments that do not fit the tool's schema, as the model's would not", async () => {
    const seen: unknown[] = [];
    const jobs = [listJob('c1', seen)];
    const [final] = finals(
      await run(jobs, () => ({ approved: true, args: { path: '/', limit: 1000 } })),
    );
    expect(seen).to.deep.equal([]);
    expect(final?.error).to.be.instanceOf(NotApprovedError);
    expect(final?.error?.message).to.equal(
      `call "c1" was not approved: its edited arguments do not fit the tool's schema: invalid arguments: limit: expected a number <= 100, got 1000`,
    );
  });

  it('refuses edited arguments that are not an object or JSON text, whatever they are', async () => {
    const cyclic: { [key: string]: unknown } = {};
    cyclic.self = cyclic;
    const cases: [unknown, string][] = [
      [[1, 2], 'its edited arguments must be an object or JSON text, got array'],
      [42, 'must be an object or JSON text, got 42'],
      [null, 'must be an object or JSON text, got null'],
      ['{"path":', 'not valid JSON'],
      ['[1]', 'expected object, got array'],
      ['{"__proto__":{"x":1},"path":"/","limit":1}', 'property "__proto__" is not allowed'],
      [cyclic, 'its edited arguments are not JSON'],
      [{ big: 10n }, 'its edited arguments are not JSON'],
    ];
    for (const [args, expected] of cases) {
      const seen: unknown[] = [];
      const [final] = finals(await run([listJob('c1', seen)], () => ({ approved: true, args })));
      expect(seen, String(args)).to.deep.equal([]);
      expect(final?.error, String(args)).to.be.instanceOf(NotApprovedError);
      expect(final?.error?.message, String(args)).to.include(expected);
      expect(final?.error?.message, String(args)).to.match(/^call "c1" was not approved: /);
    }
  });

  it('refuses edited arguments that name another resource than the call waits its turn on', async () => {
    const seen: unknown[] = [];
    const jobs: Job[] = [
      { tool: lister(seen, (args) => `dir:${args.path}`), call: { id: 'c1', args: ARGS } },
    ];
    const [final] = finals(
      await run(jobs, () => ({ approved: true, args: { path: '/etc', limit: 1 } })),
    );
    expect(seen).to.deep.equal([]);
    expect(final?.error?.message).to.equal(
      'call "c1" was not approved: its edited arguments name resource "dir:/etc", not "dir:/", whose turn the call waits for',
    );
    // The same resource is fine.
    const [same] = finals(
      await run(jobs, () => ({ approved: true, args: { path: '/', limit: 2 } })),
    );
    expect(same?.result?.output).to.equal('listed / (2)');
  });

  it('ignores a note that is not text, and a plain { approved: true } adds nothing', async () => {
    const jobs = [listJob('c1', [])];
    const [odd] = finals(await run(jobs, () => ({ approved: true, note: 42 })));
    expect(odd).to.deep.equal({
      index: 0,
      callId: 'c1',
      final: true,
      result: { output: 'listed / (10)' },
    });
    const [plain] = finals(await run(jobs, () => ({ approved: true, note: '' })));
    expect(plain).to.not.have.property('note');
  });

  it('edits a call of a raw tool: the text is checked against its JSON Schema', async () => {
    const seen: string[] = [];
    const raw = {
      name: 'echo',
      description: 'Echoes',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
        additionalProperties: false,
      },
      execute: (call: { args: string }) => {
        seen.push(call.args);
        return of({ final: true as const, result: { output: call.args } });
      },
    };
    const jobs: Job[] = [{ tool: raw, call: { id: 'e1', args: '{"text":"a"}' } }];
    const [ok] = finals(await run(jobs, () => ({ approved: true, args: { text: 'b' } })));
    expect(ok?.result?.output).to.equal('{"text":"b"}');
    const [bad] = finals(await run(jobs, () => ({ approved: true, args: { text: 'b', x: 1 } })));
    expect(bad?.error?.message).to.match(/its edited arguments do not fit the tool's schema: /);
    expect(seen).to.deep.equal(['{"text":"b"}']);
  });

  it('uses the edit when the answer comes after the call was admitted, in virtual time', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      // The tool's output is the arguments it ran with.
      const a = stubTool('a', (call) =>
        cold('--(f|)', { f: { final: true, result: { output: call.args } } }),
      );
      const bSource = cold('-(f|)', toolEvents);
      const jobs: Job[] = [
        { tool: a, call: { id: 'a', args: '{"n":1}' } },
        { tool: stubTool('b', bSource), call: { id: 'b', args: '' } },
      ];
      const answer = cold<Approval>('---y|', {
        y: { approved: true, args: '{"n":2}', note: 'two' },
      });
      const approve = (job: Job) => (job.call.id === 'a' ? answer : true);
      const events = executeBatch(jobs, { maxParallel: 1, approve }).pipe(
        map((event) =>
          event.final ? `${event.callId} ${event.result?.output} ${event.note}` : '',
        ),
      );
      // b takes the slot while a waits for its person; a runs from 3 with the edited arguments.
      expectObservable(events).toBe('-b---(a|)', {
        b: 'b done undefined',
        a: 'a {"n":2} two',
      });
      expectSubscriptions(answer.subscriptions).toBe('^--!');
      expectSubscriptions(bSource.subscriptions).toBe('^!');
    });
  });

  it('works for executeCalls as jobs arrive', async () => {
    const seen: unknown[] = [];
    const jobs = [listJob('c1', seen), listJob('c2', seen)];
    const approve = (job: Job): Approval =>
      job.call.id === 'c2' ? { approved: true, args: { path: '/x', limit: 3 }, note: 'n' } : true;
    const events = await lastValueFrom(of(...jobs).pipe(executeCalls({ approve }), toArray()));
    const byId = Object.fromEntries(finals(events).map((event) => [event.callId, event]));
    expect(byId.c1).to.not.have.property('note');
    expect(byId.c2?.note).to.equal('n');
    expect(byId.c2?.editedArgs).to.equal('{"path":"/x","limit":3}');
    expect(seen).to.deep.equal([
      { path: '/', limit: 10 },
      { path: '/x', limit: 3 },
    ]);
  });
});

describe('turnItems: what a person added reaches the model, detached calls too', () => {
  it("puts an ordinary call's note in the turn, and a detached call's in its later message", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const quick = stubTool('quick', cold('-(f|)', toolEvents));
      const slow = stubTool('slow', cold('----(f|)', toolEvents), { detach: true });
      const jobs: Job[] = [
        { tool: quick, call: { id: 'q', args: '' } },
        { tool: slow, call: { id: 's', args: '' } },
      ];
      const approve = (job: Job): Approval => ({ approved: true, note: `ok ${job.call.id}` });
      const items = executeBatch(jobs, { approve }).pipe(
        turnItems(jobs),
        map((batch) =>
          batch.map((item) =>
            item.type === 'function_call_output'
              ? item.output
              : (item.content[0] as { text: string }).text,
          ),
        ),
      );
      expectObservable(items).toBe('-t--(m|)', {
        t: ['done\n\n[Note from the person who reviewed this call: ok q]', DETACHED_OUTPUT],
        m: [
          'The background call "s" (slow) finished: done\n\n[Note from the person who reviewed this call: ok s]',
        ],
      });
    });
  });
});
