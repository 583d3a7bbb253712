/**
 * The call context: one per call, made by whoever runs the call (the executor, the MCP server,
 * `tool()` for its function). A class: one object per call, with no closures.
 *
 * @module
 */
import type { Observable } from 'rxjs';
import { CancelledError, describeThrown, oneLine, RecordError } from './errors.js';
import {
  CANCELLED,
  DECLINED,
  OpenQuestion,
  questionBound,
  requestError,
  tooManyQuestions,
} from './open-question.js';
import {
  DEFAULT_MAX_RECORD_BYTES,
  DEFAULT_MAX_RECORDS,
  recordCap,
  recordOf,
  utf8Length,
  type Recordable,
  type Recorder,
  type ToolRecord,
} from './records.js';
import { withIdempotencyKey } from './replay.js';
import { progressResult } from './result.js';
import type { ResumedRun } from './steps.js';
import type {
  ElicitRequest,
  ElicitResult,
  Elicitor,
  ProgressUpdate,
  Session,
  ToolCall,
  ToolContext,
  ToolResult,
} from './contract.js';

/** Where a context's progress (and, optionally, its questions) go. */
export interface ProgressSink {
  /** Receives one progress update, already normalised to a result. */
  progress(result: ToolResult): void;
  /**
   * Receives each question the context's own elicitor is asked: once when asked (`answer`
   * undefined), then once with its answer (`cancel` when the call ended first). A question the
   * context passes to its `parent` is the parent's to report.
   */
  question?(request: ElicitRequest, answer: ElicitResult | undefined): void;
  /**
   * Receives what unsubscribing an Observable answer of the context's elicitor threw (once it has
   * answered, or when the call ends first): the answer stands. Without it, one `console.error` line.
   */
  answerTeardownError?(thrown: unknown): void;
}

/** The contexts made with `checkAnswers: false`: they relay another party's questions. */
const relaying = new WeakSet<object>();

/**
 * Whether `context` relays the questions it is asked for another party, which judges the answers
 * (`CallContextOptions.checkAnswers` false: an MCP proxy's call of a remote tool). The answers
 * then go on as given: no check, and no default filled in.
 */
export function relaysQuestions(context: object): boolean {
  return relaying.has(context);
}

/** What a {@link CallContext} is made with; every field is optional. */
export interface CallContextOptions {
  /** Receives each progress update, normalised to a result. */
  sink?: ProgressSink;
  /** Writes records; without one, `record` resolves at once. */
  recorder?: Recorder;
  /** The most records the call may write (default 1,000); see `ExecuteOptions.maxRecords`. */
  maxRecords?: number;
  /** The most bytes of records the call may write (default 1 MiB); see `ExecuteOptions.maxRecordBytes`. */
  maxRecordBytes?: number;
  /** The MCP session the call arrived on. */
  session?: Session;
  /**
   * Answers the call's questions (`context.elicit`). Without one, a question goes to `parent`
   * when there is one, and is otherwise declined at once.
   */
  elicitor?: Elicitor;
  /**
   * How many questions the call may ask over its life through `elicitor` (a question passed to
   * `parent` is counted there): the one past it rejects with a RangeError naming the call and the
   * cap, and is never asked. Defaults to 16 (`DEFAULT_MAX_QUESTIONS`); below 1, or NaN, means the default.
   */
  maxQuestions?: number;
  /**
   * Whether an answer of `elicitor` that accepts is checked against the question's schema first
   * (default true): content that does not fit settles the question with `cancel`. False passes
   * answers on as given, for a context that only relays a question another party asked and judges
   * (an MCP proxy's call of a remote tool).
   */
  checkAnswers?: boolean;
  /**
   * An outer context to take `record`, `session` and `elicit` from, when this context serves a
   * call that another runner started (as `tool()` does for its function).
   */
  parent?: ToolContext;
}

/**
 * The standard {@link ToolContext}. Its AbortSignal is created only when a tool reads `signal`,
 * so a call that never looks costs nothing; {@link CallContext.cancel} aborts it, now or as soon as
 * it is created. {@link CallContext.finish} marks the call ended: later progress is dropped and a
 * later cancel does nothing, since the signal aborts on cancellation only.
 */
export class CallContext implements ToolContext {
  // Ten fields, the options kept as given and read when used: a runner makes one context per
  // call, and shares one options object among its calls (see the constructor's `sink`).
  // Declared and set in the constructor rather than initialised as class fields: a context is
  // made per call, and field initialisers cost the engine there (see lib/call-consumer.ts).
  declare private ownCall: ToolCall;
  declare private keyed: boolean; // whether ownCall carries its idempotency key yet
  declare private readonly sink: ProgressSink | undefined;
  declare private readonly options: CallContextOptions;
  declare private records: RecordCount | undefined; // made by the first record
  // `step` and `resumed` are put on the prototype by `registerSteps` (lib/steps.ts), which the
  // Node entry calls: a browser bundle that does not call it goes without their code, and its
  // `step` (below) says what to call.
  /** See {@link ToolContext.resumed}; there once `registerSteps()` has run. */
  declare readonly resumed: ResumedRun | undefined;
  declare private questions: Set<OpenQuestion> | undefined; // made by the first question
  declare private asked: number; // questions asked over the call's life
  declare private controller: AbortController | undefined;
  declare private cancelReason: unknown;
  declare private state: 0 | 1 | 2; // running, cancelled, finished

  /**
   * @param call The call being run.
   * @param options What the context is made with, read when used (not copied): keep it unchanged
   *   while the call runs.
   * @param sink Where its progress goes, in place of `options.sink`: a runner shares one options
   *   object among its calls and gives each its own sink here.
   */
  constructor(
    call: ToolCall,
    options: CallContextOptions = {},
    sink: ProgressSink | undefined = options.sink,
  ) {
    this.ownCall = call;
    this.keyed = false;
    this.sink = sink;
    this.options = options;
    this.records = undefined;
    this.questions = undefined;
    this.asked = 0;
    this.controller = undefined;
    this.cancelReason = undefined;
    this.state = 0;
    if (options.checkAnswers === false) relaying.add(this);
  }

  /**
   * See {@link ToolContext.step}. Until `registerSteps()` has run (the Node entry runs it; a
   * browser bundle calls it), a step is refused with a message that says so, and `fn` never runs.
   */
  step<T>(name: string, _fn: () => T | PromiseLike<T> | Observable<T>): Promise<T> {
    return Promise.reject(
      new Error(
        `context.step(${JSON.stringify(name)}): steps are not installed in this bundle; call registerSteps() from 'agenttool' once (docs/records.md)`,
      ),
    );
  }

  /**
   * The call, with its idempotency key filled in (`idempotencyKeyOf`, qualified by the session id
   * under an MCP session): the call as given when it carries a key, otherwise a copy made the first
   * time it is read.
   */
  get call(): ToolCall & {
    /** The application's key, or else the call id. */
    readonly idempotencyKey: string;
  } {
    if (!this.keyed) {
      this.ownCall = withIdempotencyKey(this.ownCall, this.session?.id);
      this.keyed = true;
    }
    return this.ownCall as ToolCall & { readonly idempotencyKey: string };
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.state === 1) this.controller.abort(this.cancelReason);
    }
    return this.controller.signal;
  }

  get session(): Session | undefined {
    const options = this.options;
    return options.session ?? options.parent?.session;
  }

  /** Whether the call was cancelled. */
  get cancelled(): boolean {
    return this.state === 1;
  }

  progress(update: ProgressUpdate): void {
    if (this.state === 0 && this.sink !== undefined) this.sink.progress(progressResult(update));
  }

  record(details: Recordable): Promise<void> {
    const { parent, recorder } = this.options;
    if (parent !== undefined) return parent.record(details);
    if (recorder === undefined) return Promise.resolve();
    const records = (this.records ??= {
      count: 0,
      bytes: 0,
      full: undefined,
      maxRecords: recordCap(this.options.maxRecords, DEFAULT_MAX_RECORDS),
      maxBytes: recordCap(this.options.maxRecordBytes, DEFAULT_MAX_RECORD_BYTES),
    });
    // Past the cap, every record is refused with the one error, made once: a tool that records in
    // a loop costs a rejected Promise a record, not an Error and its stack.
    if (records.count >= records.maxRecords) {
      records.full ??= new RecordError(
        `record: past the call's ${records.maxRecords} records (maxRecords), not written`,
        { limit: 'maxRecords' },
      );
      return Promise.reject(records.full);
    }
    return new Promise<void>((resolve) => {
      const record = recordOf(details);
      if (record === undefined) throw new TypeError('record: details must implement recordNS()');
      count(records, record);
      resolve(recorder(record, this.call));
    });
  }

  /**
   * Asks a question: through this context's elicitor (reported to the sink, asked then answered),
   * else through `parent`'s, else declined at once. Past `maxQuestions` questions asked of its
   * elicitor, rejects with a RangeError and asks nothing. Once the call has ended or been cancelled, and
   * when it ends or is cancelled while the question is open, resolves to `cancel`.
   */
  elicit(request: ElicitRequest): Promise<ElicitResult> {
    const invalid = requestError(request);
    if (invalid !== undefined) return Promise.reject(invalid);
    if (this.state !== 0) return Promise.resolve(CANCELLED);
    const { elicitor, parent } = this.options;
    if (elicitor === undefined && typeof parent?.elicit !== 'function')
      return Promise.resolve(DECLINED);
    // Counted where asked: a question passed to `parent` is the parent's to count.
    if (elicitor !== undefined) {
      const max = questionBound(this.options.maxQuestions);
      if (++this.asked > max) return Promise.reject(tooManyQuestions(this.ownCall.id, max));
    }
    return new Promise<ElicitResult>((resolve, reject) => {
      // A closure per question, not per call: the owner stays out of the public class.
      const owner = {
        answered: (q: OpenQuestion, answer: ElicitResult) => this.answered(q, answer),
        teardownError: (thrown: unknown) => this.answerTeardownError(thrown),
        misfit: (problem: string) => this.misfit(problem),
        checks: this.options.checkAnswers !== false,
      };
      const asks = elicitor !== undefined;
      const question = new OpenQuestion(request, asks, owner, resolve, reject);
      (this.questions ??= new Set()).add(question);
      if (elicitor === undefined) {
        let lent: unknown;
        try {
          lent = (parent as ToolContext).elicit(request);
        } catch {
          lent = CANCELLED;
        }
        return question.follow(lent);
      }
      this.sink?.question?.(request, undefined);
      // The sink's consumer may have ended the call while it was being told.
      if (!question.settled) question.ask(elicitor, this.call);
    });
  }

  /** A question settled: no longer open; reported to the sink when it was this context's own. */
  private answered(question: OpenQuestion, answer: ElicitResult): void {
    this.questions?.delete(question);
    if (question.reported) this.sink?.question?.(question.request, answer);
  }

  /** What unsubscribing the elicitor's answer threw: to the sink, or one console.error line. */
  private answerTeardownError(thrown: unknown): void {
    if (this.sink?.answerTeardownError !== undefined) return this.sink.answerTeardownError(thrown);
    const what = thrown instanceof Error ? `${thrown.name}: ` : '';
    console.error(
      `agenttool: the teardown of the elicitor's answer for call ${JSON.stringify(this.ownCall.id)} threw: ${what}${oneLine(describeThrown(thrown))}`,
    );
  }

  /** The elicitor's answer did not fit its question: one console.error line; the tool gets cancel. */
  private misfit(problem: string): void {
    console.error(
      `agenttool: the elicitor's answer for call ${JSON.stringify(this.ownCall.id)} does not fit its question (${oneLine(problem)}): the tool gets cancel`,
    );
  }

  /** Whether a question of this context is waiting for its answer. */
  get asking(): boolean {
    return this.questions !== undefined && this.questions.size > 0;
  }

  /**
   * Cancels the call: aborts the signal and answers its open questions with `cancel`. The
   * signal's reason is `reason`; without one, the reason its `parent` was cancelled with (a
   * `tool()` function's context, cancelled as the runner's is: a TimeoutError on a timeout), else
   * a CancelledError. Does nothing once the call has ended or been cancelled.
   */
  cancel(reason?: unknown): void {
    if (this.state !== 0) return;
    this.state = 1;
    // A parent that is a CallContext has a reason once cancelled (undefined until then). Made
    // here, not as a parameter default: a teardown cancels every call it ends, and an error (with
    // its stack) for each finished call would cost more than the call itself.
    const why =
      reason !== undefined
        ? reason
        : ((this.options.parent as CallContext | undefined)?.cancelReason ?? new CancelledError());
    this.cancelReason = why;
    this.controller?.abort(why);
    if (this.questions !== undefined) this.closeQuestions();
  }

  /**
   * Marks the call ended: progress is dropped from now on, the signal never aborts, and its open
   * questions are answered with `cancel`.
   */
  finish(): void {
    if (this.state !== 0) return;
    this.state = 2;
    if (this.questions !== undefined) this.closeQuestions();
  }

  private closeQuestions(): void {
    for (const question of [...(this.questions as Set<OpenQuestion>)]) question.settle(CANCELLED);
  }
}

/** A call's records so far, against its caps. */
interface RecordCount {
  count: number;
  bytes: number;
  /** The error refusing every record past `maxRecords`, made once. */
  full: RecordError | undefined;
  readonly maxRecords: number;
  readonly maxBytes: number;
}

/** Counts `record` against the call's caps, or throws the RecordError that refuses it. */
function count(records: RecordCount, record: ToolRecord): void {
  const size = utf8Length(record.ns) + utf8Length(record.data);
  if (size > records.maxBytes - records.bytes)
    throw new RecordError(
      `record ${record.ns}: ${size} bytes, past the call's ${records.maxBytes} bytes of records (maxRecordBytes), not written`,
      { limit: 'maxRecordBytes' },
    );
  records.count++;
  records.bytes += size;
}
