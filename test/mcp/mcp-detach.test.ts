/**
 * Detached calls across MCP: `createMcpServer` lists a tool whose calls detach (`Tool.detach`)
 * as such and serves its calls as tasks; `connectMcp` gives the remote tool `detach: true`, so a
 * batch on the client answers the model's turn while the task runs, reports the result later as
 * a message item, and cancels the task when unsubscribed.
 */
import { expect } from 'chai';
import { tap } from 'rxjs';
import { z } from 'zod';
import {
  DETACHED_OUTPUT,
  executeBatch,
  tool,
  turnItems,
  type ExecutionEvent,
  type FunctionCallOutputItem,
  type InputMessageItem,
  type Job,
  type Tool,
} from '../../index.js';
import { servedWithTasks } from '../support/task-server.js';
import { until } from '../support/until.js';
import { scaled } from '../support/time.js';

const signals = new Map<string, AbortSignal>();
const gates = new Map<string, () => void>();

const tools: Tool[] = [
  tool({
    name: 'build_report',
    description: 'Builds a report; waits until the test opens its gate.',
    parameters: z.object({ label: z.string() }),
    detach: true,
    async *execute({ label }, context) {
      signals.set(label, context.signal);
      yield { progress: 1, total: 2, message: `${label}: building` };
      await new Promise<void>((resolve, reject) => {
        gates.set(label, resolve);
        context.signal.addEventListener('abort', () => reject(context.signal.reason as Error));
      });
      return `report ${label}`;
    },
  }),
  tool({
    name: 'add',
    description: 'Adds two numbers.',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => String(a + b),
  }),
];

type Items = (FunctionCallOutputItem | InputMessageItem)[];

describe('Detached calls over MCP', function () {
  this.timeout(scaled(30_000));
  const server = servedWithTasks('reports', tools);
  const { store, find } = server;

  it('lists a detached tool as detached, and the remote tool detaches', () => {
    expect(find('build_report').detach).to.equal(true);
    expect(find('build_report').remote?._meta).to.deep.equal({ 'io.agenttool/detach': true });
    expect(find('add').detach).to.equal(undefined);
  });

  it('answers the turn while the task runs, then reports its result as a message item', async () => {
    const jobs: Job[] = [
      { tool: find('build_report'), call: { id: 'c1', args: '{"label":"q3"}' } },
      { tool: find('add'), call: { id: 'c2', args: '{"a":2,"b":40}' } },
    ];
    const emitted: Items[] = [];
    const events: ExecutionEvent[] = [];
    let completed = false;
    const subscription = executeBatch(jobs)
      .pipe(
        tap((event) => events.push(event)),
        turnItems(jobs),
      )
      .subscribe({ next: (items) => emitted.push(items), complete: () => (completed = true) });
    await until(() => emitted.length === 1, 'the turn');
    expect(emitted[0]).to.deep.equal([
      { type: 'function_call_output', call_id: 'c1', output: DETACHED_OUTPUT },
      { type: 'function_call_output', call_id: 'c2', output: '42' },
    ]);
    // The call runs on, as a task of the server.
    await until(() => gates.has('q3'), 'the call on the server');
    await until(
      () => events.some((e) => !e.final && e.detached !== true && e.result?.details !== undefined),
      'the task as progress',
    );
    const progress = events.find((e) => !e.final && e.detached !== true)!;
    const { taskId } = (progress.result!.details as { task: { taskId: string } }).task;
    expect((await store.get(taskId))?.task.status).to.equal('working');
    expect(completed).to.equal(false);
    gates.get('q3')!();
    await until(() => completed, 'the batch');
    expect(emitted.slice(1)).to.deep.equal([
      [
        {
          type: 'message',
          role: 'user',
          content: [
            {
              type: 'input_text',
              text: 'The background call "c1" (build_report) finished: report q3',
            },
          ],
        },
      ],
    ]);
    subscription.unsubscribe();
  });

  it('cancels the task when the batch is unsubscribed after the turn was sent', async () => {
    const jobs: Job[] = [
      { tool: find('build_report'), call: { id: 'c3', args: '{"label":"dropped"}' } },
    ];
    const events: ExecutionEvent[] = [];
    const subscription = executeBatch(jobs).subscribe((event) => events.push(event));
    expect(events[0]).to.include({ index: 0, callId: 'c3', final: false, detached: true });
    await until(
      () => events.some((e) => !e.final && e.detached !== true && e.result?.details !== undefined),
      'the task',
    );
    const progress = events.find((e) => !e.final && e.detached !== true)!;
    const { taskId } = (progress.result!.details as { task: { taskId: string } }).task;
    subscription.unsubscribe();
    await until(() => signals.get('dropped')?.aborted === true, 'the cancellation on the server');
    for (let i = 0; i < 100 && (await store.get(taskId))?.task.status !== 'cancelled'; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await store.get(taskId))?.task.status).to.equal('cancelled');
  });
});
