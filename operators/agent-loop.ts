import {
  isObservable,
  Observable,
  Subject,
  take,
  tap,
  throwError,
  type Subscriber,
  type Subscription,
} from 'rxjs';
import type { Tool } from '../lib/contract.js';
import type { FunctionCallItem } from '../lib/open-responses.js';
import { ToolSet } from '../lib/tool-set.js';
import { executeCalls } from './execute-calls.js';
import type { Approval, ExecuteOptions, ExecutionEvent, Job, SettledResult } from './job.js';
import { missingTool } from './jobs-from-items.js';
import { codecOf, type FormatCodec, type LoopFormat, type LoopFormats } from './loop-formats.js';
import type { LoopEvent, LoopTurnEnd } from './loop-events.js';
import { readModelStream, type ModelPart, type ProviderStream } from './model-stream/parts.js';
import { settledOf } from './settled-of.js';

/** The turns a loop runs when `maxTurns` is not given. */
export const DEFAULT_MAX_TURNS = 10;

/** The options of {@link agentLoop}: the model, the tools, the conversation, and the engine's. */
export interface AgentLoopOptions<F extends LoopFormat = 'responses'> extends ExecuteOptions {
  /**
   * Asks the model once: sends `items` (the whole conversation) and returns its stream, as the
   * provider's SDK gives it (an AsyncIterable, an Observable, or a Promise of either). `signal`
   * aborts when the loop is unsubscribed or its `signal` aborts: pass it to the request.
   */
  model: (
    items: readonly LoopFormats[F]['item'][],
    signal: AbortSignal,
  ) => ProviderStream<LoopFormats[F]['event']>;
  /** The tools the model may call: a ToolSet, or the tools themselves. */
  tools: Pick<ToolSet, 'lookup'> | Iterable<Tool>;
  /** The first turn's items: the conversation as it stands. */
  input: readonly LoopFormats[F]['item'][];
  /** Which provider's stream `model` returns: `responses` (the default), `chat-completions`, `anthropic`. */
  format?: F | undefined;
  /** The most turns the loop runs (default {@link DEFAULT_MAX_TURNS}); below 1 or NaN means the default. */
  maxTurns?: number | undefined;
  /** Asked after each turn that made calls: true ends the loop there (`reason: 'stopped'`). */
  stopWhen?: ((turn: LoopTurnEnd<LoopFormats[F]['item']>) => boolean) | undefined;
}

/**
 * Runs a conversation's turns: asks the model, starts each call the moment the model has written
 * it, sends the calls' outputs back in the next turn, and ends when a turn makes no call, at
 * `maxTurns`, or when `stopWhen` says so.
 *
 * ```
 *   model (turn 1)   -t-c1---c2|          t: text; c1, c2: calls, each whole at that moment
 *   c1.execute          ---R1|             c1 starts as soon as it is written
 *   c2.execute               -R2|
 *   model (turn 2)               -t|       sent the items of turn 1: its calls and their outputs
 *
 *   events     s-t-c1-e-c2-e-e-E-s-t-(Ed|)  s: turn-start; e: call-events; E: turn-end; d: loop-end
 * ```
 *
 * The calls follow the engine's rules, as in {@link executeCalls} (the bound, resources, sequential
 * tools, `approve`, `elicitor`, timeouts): the engine's options pass through. The events
 * ({@link LoopEvent}) are the model's text and calls as it writes them, the engine's events for
 * each call, approvals asked and given, and each turn's start and end with its items, so a view,
 * a log or a wire encoder needs nothing else. A model stream that fails errors the loop: the calls
 * it finished writing are cancelled with it, the call it was writing never runs.
 *
 * Unsubscribing aborts the model's request (the `signal` handed to `model`) and cancels the
 * running calls. Aborting `options.signal` does the same, ends every unfinished call with a
 * CancelledError event, and ends the loop with `reason: 'cancelled'`.
 *
 * ## Example
 *
 * ```ts
 * const loop$ = agentLoop({
 *   model: (input, signal) =>
 *     client.responses.create({ model: 'gpt-5', input, tools: toolSet.definitions(), stream: true }, { signal }),
 *   tools: toolSet,
 *   input: [{ role: 'user', content: 'What is the weather in Paris?' }],
 * });
 * loop$.subscribe((event) => render(event));
 * ```
 *
 * @param options The model, the tools, the first items, and the engine's options.
 * @return The loop's events; completes after `loop-end`.
 */
export function agentLoop<F extends LoopFormat = 'responses'>(
  options: AgentLoopOptions<F>,
): Observable<LoopEvent<LoopFormats[F]['item']>> {
  return new Observable((subscriber) => {
    const loop = new LoopRun(options, subscriber);
    loop.next();
    return () => loop.close();
  });
}

type ItemOf<F extends LoopFormat> = LoopFormats[F]['item'];

/** One subscription's loop: the conversation so far and the turn running. */
class LoopRun<F extends LoopFormat> {
  private readonly codec: FormatCodec<LoopFormats[F]['event'], ItemOf<F>>;
  private readonly tools: Pick<ToolSet, 'lookup'>;
  private readonly maxTurns: number;
  private readonly items: ItemOf<F>[];
  private turn = 0;
  private running: Subscription | undefined;
  private closed = false;

  constructor(
    private readonly options: AgentLoopOptions<F>,
    private readonly subscriber: Subscriber<LoopEvent<ItemOf<F>>>,
  ) {
    this.codec = codecOf((options.format ?? 'responses') as F);
    this.tools = toolsOf(options.tools);
    const max = Math.floor(options.maxTurns ?? DEFAULT_MAX_TURNS);
    this.maxTurns = max >= 1 ? max : DEFAULT_MAX_TURNS;
    this.items = [...options.input];
  }

  /** Starts the next turn. */
  next(): void {
    if (this.closed) return;
    this.turn++;
    const input = [...this.items];
    this.subscriber.next({ type: 'turn-start', turn: this.turn, input });
    const turn = new Turn(this.turn, input, this.options, this.codec, this.tools, this.subscriber);
    this.running = turn.run((end) => this.ended(end));
  }

  close(): void {
    this.closed = true;
    this.running?.unsubscribe();
  }

  private ended(end: LoopTurnEnd<ItemOf<F>>): void {
    this.items.push(...end.output);
    this.subscriber.next(end);
    const reason = this.reasonToEnd(end);
    if (reason === undefined) {
      this.next();
      return;
    }
    this.subscriber.next({ type: 'loop-end', reason, turns: this.turn, items: [...this.items] });
    this.subscriber.complete();
  }

  private reasonToEnd(
    end: LoopTurnEnd<ItemOf<F>>,
  ): 'done' | 'max-turns' | 'stopped' | 'cancelled' | undefined {
    if (this.options.signal?.aborted === true) return 'cancelled';
    if (end.calls === 0) return 'done';
    if (this.options.stopWhen?.(end) === true) return 'stopped';
    if (this.turn >= this.maxTurns) return 'max-turns';
    return undefined;
  }
}

function toolsOf(tools: Pick<ToolSet, 'lookup'> | Iterable<Tool>): Pick<ToolSet, 'lookup'> {
  return typeof (tools as Partial<ToolSet>).lookup === 'function'
    ? (tools as Pick<ToolSet, 'lookup'>)
    : new ToolSet(tools as Iterable<Tool>);
}

/** One turn: the model's stream read into calls, the calls run as they come, the turn's items. */
class Turn<F extends LoopFormat> {
  private readonly calls: FunctionCallItem[] = [];
  private readonly jobs: Job[] = [];
  private readonly settled: SettledResult[] = [];
  private modelItems: readonly ItemOf<F>[] = [];
  private readonly arrivals = new Subject<Job>();

  constructor(
    private readonly turn: number,
    private readonly input: readonly ItemOf<F>[],
    private readonly options: AgentLoopOptions<F>,
    private readonly codec: FormatCodec<LoopFormats[F]['event'], ItemOf<F>>,
    private readonly tools: Pick<ToolSet, 'lookup'>,
    private readonly out: Subscriber<LoopEvent<ItemOf<F>>>,
  ) {}

  /** Runs the turn; `ended` gets its end. The subscription returned cancels it all. */
  run(ended: (end: LoopTurnEnd<ItemOf<F>>) => void): Subscription {
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    this.options.signal?.addEventListener('abort', stop, { once: true });
    const engine = this.arrivals.pipe(executeCalls(this.engineOptions())).subscribe({
      next: (event) => this.engineEvent(event),
      error: (err: unknown) => this.out.error(err),
      complete: () => ended(this.end()),
    });
    engine.add(() => {
      controller.abort();
      this.options.signal?.removeEventListener('abort', stop);
    });
    const stream = this.modelStream(controller.signal);
    engine.add(
      readModelStream(stream, this.codec.reader()).subscribe({
        next: (part) => this.modelPart(part),
        error: (err: unknown) => this.modelFailed(err, engine),
        complete: () => this.arrivals.complete(),
      }),
    );
    return engine;
  }

  private modelStream(signal: AbortSignal): ProviderStream<LoopFormats[F]['event']> {
    try {
      return this.options.model(this.input, signal);
    } catch (err) {
      return throwError(() => err);
    }
  }

  private modelFailed(err: unknown, engine: Subscription): void {
    // Aborted by options.signal: the engine ends the calls it has, the turn ends as usual.
    if (this.options.signal?.aborted === true) {
      this.arrivals.complete();
      return;
    }
    engine.unsubscribe();
    this.out.error(err);
  }

  private modelPart(part: ModelPart<ItemOf<F>>): void {
    const turn = this.turn;
    switch (part.type) {
      case 'text-delta':
        this.out.next({ type: 'text-delta', turn, id: part.id, delta: part.delta });
        return;
      case 'call-start':
        this.out.next({ type: 'call-start', turn, callId: part.callId, name: part.name });
        return;
      case 'call-delta':
        this.out.next({ type: 'call-delta', turn, callId: part.callId, delta: part.delta });
        return;
      case 'call':
        this.arrive(part.call);
        return;
      case 'items':
        this.modelItems = part.items;
    }
  }

  private arrive(call: FunctionCallItem): void {
    const job: Job = {
      tool: this.tools.lookup(call.name) ?? missingTool(call.name),
      call: { id: call.call_id, args: call.arguments },
    };
    this.calls.push(call);
    this.jobs.push(job);
    this.out.next({ type: 'call', turn: this.turn, call });
    this.arrivals.next(job);
  }

  private engineEvent(event: ExecutionEvent): void {
    const index = event.index;
    if (event.final) this.settled[index] = settledOf(event);
    else if (event.detached === true) this.settled[index] ??= { result: event.result };
    this.out.next({ type: 'call-event', turn: this.turn, call: this.calls[index]!, event });
  }

  private end(): LoopTurnEnd<ItemOf<F>> {
    const output = [...this.modelItems, ...this.codec.outputs(this.jobs, this.settled)];
    return { type: 'turn-end', turn: this.turn, output, calls: this.jobs.length };
  }

  private engineOptions(): ExecuteOptions {
    const approve = this.options.approve;
    if (approve === undefined) return this.options;
    return { ...this.options, approve: (job, index) => this.approval(approve, job, index) };
  }

  /** Asks the application's `approve`, saying so in the events, and says its answer. */
  private approval(
    approve: NonNullable<ExecuteOptions['approve']>,
    job: Job,
    index: number,
  ): Approval | Promise<Approval> | Observable<Approval> {
    const call = this.calls[index]!;
    const base = { type: 'approval', turn: this.turn, callId: call.call_id, call } as const;
    this.out.next(base);
    const given = (answer: Approval): void => this.out.next({ ...base, answer });
    const answer = approve(job, index);
    if (isObservable(answer)) return answer.pipe(take(1), tap(given));
    if (answer instanceof Promise) return answer.then((a) => (given(a), a));
    given(answer);
    return answer;
  }
}
