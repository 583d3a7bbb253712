/**
 * A fleet worker stops a job's call through its stop (adapters/redis/fleet-stop.ts), the batch
 * signal of the call's `executeBatch`: aborted, it ends the call with a CancelledError and aborts
 * the tool's own signal, whether the batch runs alone or through the engine's turn-taking.
 * No Redis needed.
 */
import { expect } from 'chai';
import { lastValueFrom, Observable, toArray } from 'rxjs';
import { FleetStop } from '../../adapters/redis/fleet-stop.js';
import { executeBatch, type ExecutionEvent, type Tool } from '../../index.js';

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

describe('fleet: a worker call’s stop', () => {
  for (const [kind, resource] of [
    ['a batch run alone', undefined],
    ['a batch run by the engine (a resource named from the arguments)', () => 'r'],
  ] as const)
    it(`ends the running call with a CancelledError when aborted: ${kind}`, async () => {
      const seen: string[] = [];
      const stop = new FleetStop();
      const ended = lastValueFrom(
        executeBatch([{ tool: holding(seen, resource), call: { id: 'c', args: '{}' } }], {
          signal: stop.signal,
        }).pipe(toArray()),
      );
      expect(seen).to.deep.equal(['started']);
      stop.abort(new Error('cancelled by its dispatcher'));
      const events: ExecutionEvent[] = await ended;
      expect(events).to.have.length(1);
      expect(events[0]!.final).to.equal(true);
      expect(events[0]!.error).to.include({ code: 'cancelled', message: 'call cancelled' });
      expect(seen).to.include.members(['tool signal aborted', 'unsubscribed']);
      expect(stop.aborted).to.equal(true);
    });

  it('ends a call not started yet at once when already aborted, without running its tool', async () => {
    const seen: string[] = [];
    const stop = new FleetStop();
    stop.abort(new Error('worker closed'));
    const events = await lastValueFrom(
      executeBatch([{ tool: holding(seen), call: { id: 'c', args: '{}' } }], {
        signal: stop.signal,
      }).pipe(toArray()),
    );
    expect(events.map((e) => [e.final, e.error?.message])).to.deep.equal([
      [true, 'call cancelled'],
    ]);
    expect(seen).to.deep.equal([]);
  });

  it('calls each listener once, and none removed before the abort', () => {
    const stop = new FleetStop();
    const calls: string[] = [];
    const kept = () => calls.push('kept');
    const removed = () => calls.push('removed');
    stop.addEventListener('abort', kept);
    stop.addEventListener('abort', removed);
    stop.addEventListener('abort', { handleEvent: () => calls.push('object') });
    stop.removeEventListener('abort', removed);
    stop.abort('first');
    stop.abort('second');
    expect(calls).to.deep.equal(['kept', 'object']);
    expect(stop.reason).to.equal('first');
  });
});
