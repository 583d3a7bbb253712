/**
 * A fleet worker stops a job's call through its run (adapters/redis/fleet-stop.ts): stopped, the
 * call's batch is unsubscribed, which aborts the tool's own signal and runs its teardown, and the
 * run ends with a CancelledError final, whether the batch runs alone or through the engine's
 * turn-taking. No Redis needed.
 */
import { expect } from 'chai';
import { Observable, of } from 'rxjs';
import { StoppableRun } from '../../adapters/redis/fleet-stop.js';
import { executeBatch, type ExecutionEvent, type Tool, type ToolEvent } from '../../index.js';

/** A tool that runs until unsubscribed, saying when it started and what stopped it. */
function holding(seen: string[], resource?: Tool['resource']): Tool {
  return {
    name: 'hold',
    description: 'Runs until stopped.',
    ...(resource === undefined ? {} : { resource }),
    execute: (_call, context) =>
      new Observable(() => {
        seen.push('started');
        context.signal.addEventListener('abort', () => seen.push('tool signal aborted'));
        return () => seen.push('unsubscribed');
      }),
  };
}

const batchOf = (tool: Tool) => executeBatch([{ tool, call: { id: 'c', args: '{}' } }]);

describe('fleet: a worker call’s stop', () => {
  for (const [kind, resource] of [
    ['a batch run alone', undefined],
    ['a batch run by the engine (a resource named from the arguments)', () => 'r'],
  ] as const)
    it(`ends the running call with a CancelledError when stopped: ${kind}`, async () => {
      const seen: string[] = [];
      const run = new StoppableRun();
      const ended = run.run('c', batchOf(holding(seen, resource)), () => {});
      expect(seen).to.deep.equal(['started']);
      run.stop();
      const final: ExecutionEvent = await ended;
      expect(final.final).to.equal(true);
      expect(final.error).to.include({ code: 'cancelled', message: 'call cancelled' });
      expect(seen).to.include.members(['tool signal aborted', 'unsubscribed']);
      expect(run.stopped).to.equal(true);
    });

  it('ends a call not started yet at once when already stopped, without running its tool', async () => {
    const seen: string[] = [];
    const run = new StoppableRun();
    run.stop();
    const final = await run.run('c', batchOf(holding(seen)), () => {});
    expect([final.final, final.error?.message]).to.deep.equal([true, 'call cancelled']);
    expect(seen).to.deep.equal([]);
  });

  it('gives the events before the final to progress, and the final as its end; a stop after changes nothing', async () => {
    const progress: ExecutionEvent[] = [];
    const steps: Tool = {
      name: 'steps',
      description: 'Two steps, then done.',
      execute: () =>
        of<ToolEvent[]>(
          { final: false, result: { output: 'half' } },
          { final: true, result: { output: 'done' } },
        ),
    };
    const run = new StoppableRun();
    const final = await run.run('c', batchOf(steps), (event) => progress.push(event));
    run.stop();
    run.stop();
    expect(progress.map((e) => e.result?.output)).to.deep.equal(['half']);
    expect(final.result?.output).to.equal('done');
  });
});
