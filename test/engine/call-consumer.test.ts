import { expect } from 'chai';
import { concat, mergeMap, NEVER, Observable, of, range, Subscription } from 'rxjs';
import { CallConsumer } from '../../lib/call-consumer.js';
import { CallContext } from '../../lib/context.js';
import type { Tool, ToolEvent, ToolResult } from '../../lib/contract.js';

/** A consumer that records what it is told. */
class Recorder extends CallConsumer {
  progressCount = 0;
  ended: { result: ToolResult | undefined; error: Error | undefined } | undefined;
  teardownErrors: unknown[] = [];
  constructor() {
    super();
    this.init();
  }
  run(tool: Tool): boolean {
    const call = { id: 'c', args: '' };
    const context = new CallContext(call, {}, this);
    return this.consume(tool, call, context);
  }
  protected onProgress(): void {
    this.progressCount++;
  }
  protected onEnd(result: ToolResult | undefined, error: Error | undefined): void {
    this.ended = { result, error };
  }
  protected onTeardownError(thrown: unknown): void {
    this.teardownErrors.push(thrown);
  }
  /** How many finalizers the consumer holds for the tool now (rxjs's own list, read for the test). */
  held(): number {
    const holder = (this as unknown as { finalizers: Subscription | undefined }).finalizers;
    const list = (holder as unknown as { _finalizers: unknown[] | null } | undefined)?._finalizers;
    return list?.length ?? 0;
  }
}

const step: ToolEvent = { final: false, result: { output: 'step' } };

describe('the call consumer as the tool’s Subscriber', () => {
  it('lets go of inner subscriptions that ended, so a long call holds only the live ones', () => {
    // Five thousand inner observables, each subscribed and ended within the call, which runs on.
    const busy: Tool = {
      name: 'busy',
      description: '',
      execute: () => concat(range(0, 5000).pipe(mergeMap(() => of(step))), NEVER),
    };
    const consumer = new Recorder();
    expect(consumer.run(busy)).to.equal(true);
    expect(consumer.progressCount).to.equal(5000);
    expect(consumer.held()).to.be.at.most(3);
    consumer.cancel();
    expect(consumer.ended).to.equal(undefined);
    expect(consumer.teardownErrors).to.deep.equal([]);
  });

  it('is subscribed as it is: the producer’s subscriber is the consumer', () => {
    let seen: unknown;
    const tool: Tool = {
      name: 'direct',
      description: '',
      execute: () =>
        new Observable<ToolEvent>((subscriber) => {
          seen = subscriber;
          subscriber.next({ final: true, result: { output: 'done' } });
        }),
    };
    const consumer = new Recorder();
    expect(consumer.run(tool)).to.equal(false);
    expect(seen).to.equal(consumer);
    expect(consumer.ended?.result).to.deep.equal({ output: 'done' });
  });

  it('takes itself given back as a teardown, and lets go once', () => {
    let ran = 0;
    const tool: Tool = {
      name: 'self',
      description: '',
      execute: () =>
        new Observable<ToolEvent>((subscriber) => {
          subscriber.next(step);
          subscriber.add(() => ran++);
          return subscriber; // some producers hand back what they were given
        }),
    };
    const consumer = new Recorder();
    expect(consumer.run(tool)).to.equal(true);
    consumer.cancel();
    consumer.cancel();
    expect(ran).to.equal(1);
    expect(consumer.teardownErrors).to.deep.equal([]);
  });
});
