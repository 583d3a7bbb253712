/**
 * Many task calls over one `httpTransport`: the transport's requests alternate between the
 * transport's own abort signal and a signal made for one request (the SDK's), and the client's
 * fetch (adapters/mcp-client/answer-watch.ts) follows each of them. Each signal it follows gets
 * one listener while it has requests running and none after, so no signal gathers listeners call
 * after call (Node's MaxListenersExceededWarning past ten).
 */
import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { FollowedSignals } from '../../../adapters/mcp-client/followed-signals.js';
import { executeBatch, tool } from '../../../index.js';
import { servedWithTasks } from '../../support/task-server.js';
import { scaled } from '../../support/time.js';

const echo = tool({
  name: 'echo_task',
  description: 'Answers with its text, as a task.',
  parameters: z.object({ text: z.string() }),
  task: true,
  execute: ({ text }) => text,
});

describe('task calls over one httpTransport: abort listeners', function () {
  this.timeout(scaled(60_000));
  const served = servedWithTasks('listeners', [echo]);

  it('twenty task calls, one after another, raise no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(`${warning.name}: ${warning.message}`);
    };
    process.on('warning', onWarning);
    try {
      const task = served.find('echo_task');
      for (let i = 0; i < 20; i++) {
        const call = { id: `c${i}`, args: JSON.stringify({ text: `n${i}` }) };
        const events = await lastValueFrom(executeBatch([{ tool: task, call }]).pipe(toArray()));
        expect(events.filter((e) => e.final).map((e) => e.result?.output)).to.deep.equal([`n${i}`]);
      }
      // A warning is emitted on the next tick of the listener that crossed the limit.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).to.deep.equal([]);
  });
});

describe('FollowedSignals', () => {
  const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

  it('one listener on a signal while its requests run, none once they are done', () => {
    const signals = new FollowedSignals();
    const transport = new AbortController().signal;
    for (let i = 0; i < 20; i++) {
      // The SDK's alternation: a request on the transport's signal, then one on a signal of its own.
      const first = signals.own(transport);
      const second = signals.own(transport);
      const single = new AbortController().signal;
      const third = signals.own(single);
      expect([listeners(transport), listeners(single)]).to.deep.equal([1, 1]);
      first.release();
      expect(listeners(transport)).to.equal(1);
      second.release();
      second.release();
      third.release();
      expect([listeners(transport), listeners(single)]).to.deep.equal([0, 0]);
    }
  });

  it("a signal's abort aborts the requests that follow it, and no others", () => {
    const signals = new FollowedSignals();
    const transport = new AbortController();
    const single = new AbortController();
    const onTransport = signals.own(transport.signal);
    const onSingle = signals.own(single.signal);
    single.abort(new Error('cancelled'));
    expect([onTransport.signal.aborted, onSingle.signal.aborted]).to.deep.equal([false, true]);
    expect((onSingle.signal.reason as Error).message).to.equal('cancelled');
    transport.abort(new Error('closed'));
    expect(onTransport.signal.aborted).to.equal(true);
    // A request that comes after its signal aborted starts aborted, and leaves no listener.
    const late = signals.own(transport.signal);
    expect([late.signal.aborted, listeners(transport.signal)]).to.deep.equal([true, 0]);
  });
});
