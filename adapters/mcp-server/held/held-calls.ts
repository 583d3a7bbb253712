/**
 * A served call of MCP 2026-07-28 that asks its client: held, still running, while the client
 * answers, and carried on by the client's retry.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type {
  CallToolResult,
  InputRequiredResult,
  LoggingMessageNotification,
  ServerContext,
  ServerNotification,
} from '@modelcontextprotocol/server';
import type { Elicitor } from '../../../lib/contract.js';
import { CancelledError } from '../../../lib/errors.js';
import type { RootsAsker } from '../../mcp-shared/relayed-roots.js';
import { sendCallLog } from '../call-log.js';
import type { ElicitationModes } from '../client-elicitor.js';
import { OpenQuestions } from '../open-questions.js';
import { signState, type StateSigning } from './request-state.js';

/** The default `questionTimeoutMs` of `createMcpServer`: 5 minutes, in ms. */
export const DEFAULT_QUESTION_TIMEOUT = 5 * 60_000;

/** @deprecated The old name of {@link DEFAULT_QUESTION_TIMEOUT}. */
export const DEFAULT_RETRY_TIMEOUT = DEFAULT_QUESTION_TIMEOUT;

/**
 * How long (ms) a served call's question may wait for its client's answer: `questionTimeoutMs`,
 * else the deprecated `retryTimeout`, else {@link DEFAULT_QUESTION_TIMEOUT}.
 * @throws RangeError for a value that is not a whole number of ms, at least 1.
 */
export function questionTimeoutOf(options: {
  questionTimeoutMs?: number | undefined;
  retryTimeout?: number | undefined;
}): number {
  const given = options.questionTimeoutMs ?? options.retryTimeout;
  if (given === undefined) return DEFAULT_QUESTION_TIMEOUT;
  if (!Number.isSafeInteger(given) || given < 1) {
    const name = options.questionTimeoutMs === undefined ? 'retryTimeout' : 'questionTimeoutMs';
    throw new RangeError(`${name} must be a whole number of ms, at least 1, got ${given}`);
  }
  return given;
}

/** The calls held in this process, by id: each waits for its client's retry. */
const held = new Map<string, HeldCall>();

/** The held call a verified state names, if it is still held here. */
export function heldCall(id: string): HeldCall | undefined {
  return held.get(id);
}

/**
 * One served call of a modern request. It runs as any call; when its tool asks a question
 * (`context.elicit`), the request that speaks for it is answered `input_required` with the
 * question and a signed `requestState`, and the call goes on running, held here; the client's retry
 * (the same tool, the answers in `inputResponses`, the state echoed) gives the tool its answer and
 * speaks for the call from then on: its progress, its next question or its result. So nothing the
 * tool did before its question runs twice. A call whose retry does not come within `wait` ms is
 * cancelled (its open question ends with `cancel`); so is one whose client closes the stream of the
 * request that speaks for it.
 */
export class HeldCall {
  readonly id = randomUUID();
  private readonly controller = new AbortController();
  /** The served call's signal: aborts when it is cancelled (see the class). */
  readonly signal = this.controller.signal;
  /** The request speaking for the call now. */
  private ctx: ServerContext | undefined = undefined;
  /** The call's questions: open, each waits for a retry to carry its answer. */
  private readonly questions: OpenQuestions;
  private result: CallToolResult | undefined = undefined;
  private refusal: Error | undefined = undefined;
  private wake: (() => void) | undefined = undefined;
  private timer: ReturnType<typeof setTimeout> | undefined = undefined;
  private readonly onAbort = (): void => this.cancel();

  constructor(
    /** The tool's name: a retry must call the same tool. */
    readonly tool: string,
    private readonly wait: number,
    /**
     * The `inputResponses` the first request carries: a client may answer ahead of being asked,
     * and a question asked under one of these keys is answered at once (what it says is what a
     * retry would say). Unknown keys are ignored.
     */
    preset: Readonly<Record<string, unknown>> | undefined = undefined,
    /** The call's token (see `callTokenOf`), sent with each question so a client knows the call. */
    private readonly token: string | undefined = undefined,
    /**
     * The elicitation modes the client declared: a question in another mode is declined at once,
     * never sent (MCP forbids it).
     */
    modes: ElicitationModes = { form: true, url: false },
  ) {
    this.questions = new OpenQuestions({
      modes,
      token,
      keys: 'open',
      preset,
      changed: () => this.wake?.(),
    });
  }

  /** A progress token for the served call: `notify` puts in the token of the request of the moment. */
  readonly progressToken = 'held';

  /** The served call's notifications, to the request speaking for it now (progress: if it asked). */
  readonly notify = async (notification: ServerNotification): Promise<void> => {
    const ctx = this.ctx;
    if (ctx === undefined) return;
    if (notification.method === 'notifications/progress') {
      const token = ctx.mcpReq._meta?.progressToken;
      if (token === undefined) return;
      await ctx.mcpReq.notify({
        ...notification,
        params: { ...notification.params, progressToken: token },
      });
      return;
    }
    await ctx.mcpReq.notify(notification);
  };

  /** The served call's elicitor: each question waits for the client's retry. */
  readonly elicitor: Elicitor = (request) => this.questions.elicit(request);

  /**
   * Asks the client for its roots (a `roots/list` input request), for a proxy's call whose
   * upstream asks for them (see relayed-roots.ts): emits its roots, or undefined when its answer
   * is not a list of roots.
   */
  readonly roots: RootsAsker = (key) => this.questions.roots(key);

  /** A log message to the client, through the request that speaks for the call now, if any. */
  readonly log = (params: LoggingMessageNotification['params']): Promise<void> =>
    this.ctx === undefined
      ? Promise.resolve()
      : sendCallLog(this.ctx, this.token, undefined, params);

  /** Whether one of the call's questions is open, waiting for its client's answer. */
  get asking(): boolean {
    return this.questions.size > 0;
  }

  /**
   * Lets the call go on without waiting for a retry any more (it became a task): it is no longer
   * held, nor cancelled for want of a retry.
   */
  release(): void {
    clearTimeout(this.timer);
    held.delete(this.id);
    this.released = true;
  }

  private released = false;

  /** Whether the call is over here: it ended (its result, or cancelled), or became a task. */
  get over(): boolean {
    return this.released || this.result !== undefined || this.signal.aborted;
  }

  /** Whether the call waits, running, for its client's retry. */
  get isHeld(): boolean {
    return held.get(this.id) === this;
  }

  /** Wakes a request waiting in {@link answerUntil}, to ask its `stop` again. */
  stir(): void {
    this.wake?.();
  }

  /** The served call's result (cancelled ones included). */
  finish(result: CallToolResult): void {
    this.result = result;
    this.wake?.();
  }

  /** The served call's upstream refusal (see `runServedCall`): the request answers with it. */
  refuse(refusal: Error): void {
    this.refusal = refusal;
    this.wake?.();
  }

  /** The answers a retry carries, to the questions they answer; others are asked again. */
  deliver(responses: Readonly<Record<string, unknown>> | undefined): void {
    this.questions.deliver(responses);
  }

  /**
   * Answers the request `ctx` (the first one, or a retry) with the call's result, or with
   * `input_required` as soon as the call has a question open.
   */
  async answer(
    ctx: ServerContext,
    signing: StateSigning,
  ): Promise<CallToolResult | InputRequiredResult> {
    return (await this.answerUntil(ctx, signing, () => false))!;
  }

  /**
   * {@link answer}, or undefined as soon as `stop()` says so (checked first, and again at each
   * {@link stir}): the call goes on otherwise (a proxied call its server made a task).
   */
  async answerUntil(
    ctx: ServerContext,
    signing: StateSigning,
    stop: () => boolean,
  ): Promise<CallToolResult | InputRequiredResult | undefined> {
    clearTimeout(this.timer);
    held.delete(this.id);
    this.ctx = ctx;
    const signal = ctx.mcpReq.signal;
    if (signal.aborted) this.cancel();
    else signal.addEventListener('abort', this.onAbort);
    try {
      for (;;) {
        if (stop()) return undefined;
        if (this.result !== undefined) return this.result;
        if (this.refusal !== undefined) throw this.refusal;
        if (this.questions.size > 0) return this.hold(signing);
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      signal.removeEventListener('abort', this.onAbort);
      this.ctx = undefined;
    }
  }

  /** Holds the call for the client's retry, and says what the client must answer. */
  private hold(signing: StateSigning): InputRequiredResult {
    held.set(this.id, this);
    this.timer = setTimeout(() => this.cancel(), this.wait);
    this.timer.unref?.();
    const inputRequests = this.questions.requests();
    const state = {
      call: this.id,
      tool: this.tool,
      ...(signing.home === undefined ? {} : { home: signing.home }),
      expires: Date.now() + this.wait,
    };
    return {
      resultType: 'input_required',
      inputRequests,
      requestState: signState(state, signing.key),
    };
  }

  /** Cancels the call: its tool's signal aborts, and it is unsubscribed. */
  cancel(): void {
    clearTimeout(this.timer);
    held.delete(this.id);
    if (!this.signal.aborted) this.controller.abort(new CancelledError());
  }
}
