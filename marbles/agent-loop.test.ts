import { expect } from 'chai';
import { map, NEVER, Observable, of, timer } from 'rxjs';
import { CancelledError } from '../lib/errors.js';
import type { OutputItem } from '../lib/open-responses.js';
import { agentLoop } from '../operators/agent-loop.js';
import type { LoopEvent } from '../operators/loop-events.js';
import type { ResponsesItem } from '../operators/loop-formats.js';
import type { ResponsesStreamEvent } from '../operators/model-stream/responses.js';
import { final, stubTool } from '../testing/index.js';
import { testScheduler, toolEvents } from './support.js';

type Ev = ResponsesStreamEvent;

/** The Responses events of a text delta and of a function_call written whole. */
const text = (delta: string): Ev => ({ type: 'response.output_text.delta', item_id: 'm1', delta });
const added = (id: string, name: string): Ev => ({
  type: 'response.output_item.added',
  item: { type: 'function_call', id: `fc_${id}`, call_id: id, name, arguments: '' } as OutputItem,
});
const done = (id: string, name: string, args = '{}'): Ev => ({
  type: 'response.output_item.done',
  item: {
    type: 'function_call',
    id: `fc_${id}`,
    call_id: id,
    name,
    arguments: args,
    status: 'completed',
  } as OutputItem,
});

/** One letter per loop event, so a marble reads the loop's order in time. */
function label(event: LoopEvent): string {
  switch (event.type) {
    case 'turn-start':
      return 'S';
    case 'text-delta':
      return 'T';
    case 'call-start':
      return 'A';
    case 'call-delta':
      return 'D';
    case 'call':
      return 'C';
    case 'approval':
      return event.answer === undefined ? 'Q' : 'Y';
    case 'call-event':
      return event.event.final ? 'F' : 'P';
    case 'turn-end':
      return 'E';
    case 'loop-end':
      return 'L';
  }
}
const letters = Object.fromEntries([...'STADCQYFPEL'].map((l) => [l, l]));

/** A model that answers each turn with the next of `turns` and keeps what it was sent. */
function scripted(turns: Observable<Ev>[]) {
  const sent: (readonly ResponsesItem[])[] = [];
  const signals: AbortSignal[] = [];
  const model = (items: readonly ResponsesItem[], signal: AbortSignal): Observable<Ev> => {
    sent.push(items);
    signals.push(signal);
    return turns[sent.length - 1] ?? of<Ev>();
  };
  return { model, sent, signals };
}

describe('agentLoop: turns of a model and its calls', () => {
  it('starts each call the moment the model has written it, not when the stream ends', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const tool = cold('--(f|)', toolEvents);
      const { model } = scripted([
        cold('-t-c----|', { t: text('hi'), c: done('c1', 'echo') }),
        cold('-----t|', { t: text('bye') }),
      ]);
      const loop$ = agentLoop({
        model,
        tools: [stubTool('echo', tool)],
        input: [{ role: 'user', content: 'go' }],
      });
      expectObservable(loop$.pipe(map(label))).toBe('ST-C-F--(ES)-T(EL|)', letters);
      expectSubscriptions(tool.subscriptions).toBe('---^-!');
    });
  });

  it("sends the next turn the conversation: the model's items, then the calls' outputs", () => {
    testScheduler().run(({ cold, flush }) => {
      const { model, sent } = scripted([
        cold('-c|', { c: done('c1', 'echo', '{"x":1}') }),
        cold('-|'),
      ]);
      const events: LoopEvent[] = [];
      const tools = [stubTool('echo', cold('-(f|)', { f: final('echoed') }))];
      agentLoop({ model, tools, input: [{ role: 'user', content: 'go' }] }).subscribe((e) =>
        events.push(e),
      );
      flush();
      expect(sent).to.have.length(2);
      expect(sent[1]).to.deep.equal([
        { role: 'user', content: 'go' },
        {
          type: 'function_call',
          id: 'fc_c1',
          call_id: 'c1',
          name: 'echo',
          arguments: '{"x":1}',
          status: 'completed',
        },
        { type: 'function_call_output', call_id: 'c1', output: 'echoed' },
      ]);
      const end = events.at(-1);
      expect(end).to.include({ type: 'loop-end', reason: 'done', turns: 2 });
      expect((end as { items: readonly unknown[] }).items).to.deep.equal(sent[1]);
    });
  });

  it('runs calls side by side as they arrive, within the bound', () => {
    testScheduler().run(({ cold, expectSubscriptions, flush }) => {
      const slow = cold('------(f|)', toolEvents);
      const fast = cold('-(f|)', toolEvents);
      const { model } = scripted([
        cold('-aAb--|', { a: done('a', 'slow'), A: added('b', 'fast'), b: done('b', 'fast') }),
      ]);
      agentLoop({
        model,
        tools: [stubTool('slow', slow), stubTool('fast', fast)],
        input: [],
      }).subscribe();
      flush();
      expectSubscriptions(slow.subscriptions).toBe('-^-----!');
      expectSubscriptions(fast.subscriptions).toBe('---^!');
    });
  });

  it('ends at maxTurns when every turn makes a call', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const call = (id: string) => cold('(c|)', { c: done(id, 'echo') });
      const { model } = scripted([call('1'), call('2'), call('3')]);
      const loop$ = agentLoop({
        model,
        tools: [stubTool('echo', of(final('x')))],
        input: [],
        maxTurns: 2,
      });
      expectObservable(loop$.pipe(map(label))).toBe('(SCFESCFEL|)', letters);
    });
  });

  it('ends when stopWhen says so, after the turn it was asked about', () => {
    const { model } = scripted([of(done('1', 'echo')), of(done('2', 'echo'))]);
    const seen: number[] = [];
    const events: LoopEvent[] = [];
    agentLoop({
      model,
      tools: [stubTool('echo', of(final('x')))],
      input: [],
      stopWhen: (turn) => (seen.push(turn.turn), true),
    }).subscribe((e) => events.push(e));
    expect(seen).to.deep.equal([1]);
    expect(events.at(-1)).to.include({ type: 'loop-end', reason: 'stopped', turns: 1 });
  });

  it('says each approval asked and given, and a refused call never runs', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const tool = cold('-(f|)', toolEvents);
      const { model } = scripted([cold('c|', { c: done('c1', 'echo') }), cold('|')]);
      const loop$ = agentLoop({
        model,
        tools: [stubTool('echo', tool)],
        input: [],
        approve: () => cold('------n|', { n: false }),
      });
      expectObservable(loop$.pipe(map(label))).toBe('(SCQ)-(YFESEL|)', letters);
      expectSubscriptions(tool.subscriptions).toBe([]);
    });
  });

  it('runs an approved call once the answer comes', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const tool = cold('-(f|)', toolEvents);
      const { model } = scripted([cold('c|', { c: done('c1', 'echo') })]);
      const loop$ = agentLoop({
        model,
        tools: [stubTool('echo', tool)],
        input: [],
        approve: () => cold('------y|', { y: true }),
      });
      expectObservable(loop$.pipe(map(label))).toBe('(SCQ)-Y(FESEL|)', letters);
      expectSubscriptions(tool.subscriptions).toBe('------^!');
    });
  });

  it('a model stream that breaks mid-call: the call being written never runs, the loop errors', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const running = cold('-----(f|)', toolEvents);
      const broken = stubTool('broken', () => {
        throw new Error('never run');
      });
      const { model } = scripted([
        cold(
          '-aB-#',
          { a: done('a', 'run'), B: added('b', 'broken') },
          new Error('socket hang up'),
        ),
      ]);
      const loop$ = agentLoop({ model, tools: [stubTool('run', running), broken], input: [] });
      expectObservable(loop$.pipe(map(label))).toBe('SCA-#', letters, new Error('socket hang up'));
      expectSubscriptions(running.subscriptions).toBe('-^--!');
    });
  });

  it('unsubscribing aborts the model request and cancels the running calls', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions, flush }) => {
      const tool = cold('------(f|)', toolEvents);
      const { model, signals } = scripted([cold('-c', { c: done('c1', 'echo') })]);
      const loop$ = agentLoop({ model, tools: [stubTool('echo', tool)], input: [] });
      expectObservable(loop$.pipe(map(label)), '^---!').toBe('SC', letters);
      flush();
      expectSubscriptions(tool.subscriptions).toBe('-^--!');
      expect(signals[0]!.aborted).to.equal(true);
    });
  });

  it('aborting options.signal cancels the calls and ends the loop as cancelled', () => {
    testScheduler().run(({ cold, flush }) => {
      const controller = new AbortController();
      const { model, signals } = scripted([cold('-c', { c: done('c1', 'echo') })]);
      const events: LoopEvent[] = [];
      agentLoop({
        model,
        tools: [stubTool('echo', NEVER)],
        input: [],
        signal: controller.signal,
      }).subscribe({
        next: (e) => events.push(e),
      });
      timer(3).subscribe(() => controller.abort());
      flush();
      expect(signals[0]!.aborted).to.equal(true);
      const final = events.find((e) => e.type === 'call-event');
      expect((final as { event: { error: Error } }).event.error).to.be.instanceOf(CancelledError);
      expect(events.at(-1)).to.include({ type: 'loop-end', reason: 'cancelled' });
    });
  });

  it('tells the model of a tool it does not have, as any failure', () => {
    const { model, sent } = scripted([of(done('c1', 'nope')), of<Ev>()]);
    agentLoop({ model, tools: [], input: [] }).subscribe();
    const output = sent[1]!.at(-1) as { output: string };
    expect(output.output).to.match(/unknown tool "nope"/);
  });

  it('refuses an unknown format at subscription, naming the three', () => {
    const loop$ = agentLoop({
      model: () => of(),
      tools: [],
      input: [],
      format: 'gemini' as 'responses',
    });
    let error: unknown;
    loop$.subscribe({ error: (e: unknown) => (error = e) });
    expect(String(error)).to.match(/format must be "responses", "chat-completions" or "anthropic"/);
  });

  it('a model that throws errors the loop with its error', () => {
    const loop$ = agentLoop({
      model: () => {
        throw new Error('no key');
      },
      tools: [],
      input: [],
    });
    let error: unknown;
    loop$.subscribe({ error: (e: unknown) => (error = e) });
    expect(String(error)).to.equal('Error: no key');
  });

  it('passes through a stream error event as the loop error, naming what the provider said', () => {
    const loop$ = agentLoop({
      model: () => of<Ev>({ type: 'error', message: 'rate limited' } as Ev),
      tools: [],
      input: [],
    });
    let error: unknown;
    loop$.subscribe({ error: (e: unknown) => (error = e) });
    expect(String(error)).to.equal('Error: Responses stream failed: rate limited');
  });
});
