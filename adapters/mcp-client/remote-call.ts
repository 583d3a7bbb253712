/**
 * One call of a remote tool (RemoteCall), from its request to its end.
 *
 * @module
 */
import { LOG_LEVEL_META_KEY, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { CallToolResult, LoggingMessageNotification } from '@modelcontextprotocol/client';
import type { Subscriber } from 'rxjs';
import { CancelledError, describeThrown, oneLine } from '../../lib/errors.js';
import { relaysQuestions } from '../../lib/context.js';
import { relayedModesOf, type QuestionModes } from '../mcp-shared/relayed-modes.js';
import { rootsAskerOf, type RelayedRoot } from '../mcp-shared/relayed-roots.js';
import type { Recordable } from '../../lib/records.js';
import type {
  ElicitRequest,
  ElicitResult,
  ElicitUrlRequest,
  ToolContext,
  ToolEvent,
  ToolResult,
} from '../../lib/contract.js';
import { errorTextOf, resultFromMcp } from '../mcp-shared/mcp-content.js';
import {
  callError,
  isConnectionLost,
  McpCallError,
  RemoteToolError,
} from '../mcp-shared/mcp-errors.js';
import { RECORDS_META_KEY, recordsOf } from '../mcp-shared/mcp-records.js';
import { SDK_TIMEOUT } from './call-deadlines.js';
import { progressInfo, type RoutedCall, type RoutedProgress } from './ordered-transport.js';
import { logText } from './server-log.js';
import { traceMeta } from '../../lib/trace-context.js';
import type { McpSpan } from '../../lib/telemetry/mcp-spans.js';
import { logDetails } from '../mcp-shared/server-logs.js';
import {
  createdTask,
  RemoteTask,
  TASK_RECORD_NS,
  type TaskGeneration,
  type TaskRecord,
} from './remote-task.js';
import type { CallRequest, InFlightCall, RemoteConnection } from './remote-connection.js';
import { recordInOrder } from './call-records.js';
import { RootsAskings } from './roots-askings.js';
import { MAX_PAGE_ROUNDS, pagesOf, visitPages } from './url-refusal.js';

/** The SDK's own timeout is never reached: the call's deadline (CallDeadlines) comes first. */
const SDK_OPTIONS = { timeout: SDK_TIMEOUT } as const;

/** How long a task of MCP 2025-11-25 is asked to be kept (its `ttl`): an hour. */
const TASK_TTL = 3_600_000;

/**
 * One call of a remote tool, from its request to its end; the teardown of its subscription.
 *
 * Its progress comes from the transport (OrderedTransport.route), ahead of its answer by
 * construction; its cancellation goes through the transport too, so no AbortSignal is made.
 */
export class RemoteCall implements InFlightCall, RoutedCall {
  requestId: string | number | undefined = undefined;
  deadline = Infinity;
  /** Ends the request by its stream (see `RemoteConnection.endsByStream`); none otherwise. */
  private controller: AbortController | undefined = undefined;
  /**
   * Its progress token, which an agenttool server also sends back with the call's questions (see
   * `CALL_TOKEN`): unique on its connection, where questions are matched to calls.
   */
  token = '';
  private done = false;
  /** Questions open: the deadline waits for a person's answer. */
  private asking = 0;

  constructor(
    private readonly connection: RemoteConnection,
    readonly tool: string,
    private readonly readOnly: boolean,
    private readonly subscriber: Subscriber<ToolEvent>,
    private readonly context: ToolContext,
    private readonly request: CallRequest,
  ) {
    this.reissues = request.reissues;
  }

  /** How many more times the call may be sent again when its response breaks. */
  private reissues: number;

  /** How many more times the call may be sent again after its pages were visited (-32042). */
  private pageRounds = MAX_PAGE_ROUNDS;

  /** Sends the call (again, after a response that broke: see `failed`). */
  start(): void {
    const { remoteName, args, headers, trace } = this.request;
    const connection = this.connection;
    connection.inFlight.add(this);
    this.token = connection.router.route(this);
    connection.deadlines.start(this);
    if (connection.endsByStream) this.controller = new AbortController();
    const params = {
      name: remoteName,
      arguments: args,
      ...(this.request.asTask ? { task: { ttl: TASK_TTL } } : {}),
      // Asking for the call's records (see asksForRecords), and, for a proxy's call in MCP
      // 2026-07-28, its every log message: the proxy's client's level filters them (call-log.ts).
      _meta: {
        ...this.request.meta,
        progressToken: this.token,
        [RECORDS_META_KEY]: true,
        ...(connection.modern && this.relays ? { [LOG_LEVEL_META_KEY]: 'debug' } : {}),
        ...(trace === undefined ? {} : traceMeta(trace)),
      },
    };
    // request(), not callTool(), whose additions look in a cache connectMcp never fills (docs/mcp.md).
    connection.client
      .request(
        { method: 'tools/call', params },
        this.controller === undefined && headers === undefined
          ? SDK_OPTIONS
          : {
              ...SDK_OPTIONS,
              ...(this.controller === undefined ? {} : { signal: this.controller.signal }),
              ...(headers === undefined ? {} : { headers }),
            },
      )
      .then(
        (answer) => this.answered(answer as CallToolResult),
        (err: unknown) => this.failed(err),
      );
  }

  progress(params: RoutedProgress): void {
    if (this.done) return;
    if (this.asking === 0) this.connection.deadlines.start(this);
    const info = progressInfo(params);
    this.subscriber.next({ final: false, result: { output: info.message ?? '', details: info } });
  }

  log(params: LoggingMessageNotification['params']): boolean {
    if (this.done) return false;
    const details = logDetails(params);
    this.subscriber.next({ final: false, result: { output: logText(params.data), details } });
    return true;
  }

  get relays(): boolean {
    return relaysQuestions(this.context);
  }

  get relayedModes(): QuestionModes | undefined {
    return relayedModesOf(this.context);
  }

  elicit(request: ElicitRequest): Promise<ElicitResult> | undefined {
    if (this.done) return undefined;
    return this.waitFor(this.context.elicit(request));
  }

  /** Its askings of the client's roots (see relayed-roots.ts), made by the first. */
  private rootsAsked: RootsAskings | undefined = undefined;

  roots(key?: string): Promise<readonly RelayedRoot[] | undefined> | undefined {
    const asker = this.done ? undefined : rootsAskerOf(this.context);
    if (asker === undefined) return undefined;
    return this.waitFor((this.rootsAsked ??= new RootsAskings()).ask(asker, key));
  }

  /** `asked`, a question of the call's: its deadline waits for the answer (a person's). */
  private waitFor<T>(asked: Promise<T>): Promise<T> {
    this.asking++;
    this.deadline = Infinity;
    const answered = (): void => {
      // A task's call has no deadline of its own: it runs as long as the task does.
      if (--this.asking === 0 && !this.done && this.task === undefined)
        this.connection.deadlines.start(this);
    };
    asked.then(answered, answered);
    return asked;
  }

  fail(error: Error): void {
    if (this.done) return;
    this.end();
    this.ended({ error });
    this.subscriber.error(error);
  }

  /** Ends the call's span, if it has one. */
  private ended(outcome: Parameters<McpSpan['end']>[0]): void {
    const span = this.request.span;
    if (span === undefined) return;
    span.requestId(this.requestId);
    span.end(outcome);
  }

  timeOut(): void {
    if (this.done) return;
    const timeout = this.connection.deadlines.timeout;
    const error = new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout });
    this.cancel(String(error));
    this.fail(callError(this.tool, error));
  }

  /** The task the server answered the call with, polled until it ends (see remote-task.ts). */
  private task: RemoteTask | undefined = undefined;

  get taskId(): string | undefined {
    return this.task?.taskId;
  }

  /**
   * The server answered with a task: it is recorded through the job's recorder (so that a run
   * resumed after a crash polls it rather than calling again), then polled; its status message is
   * the call's progress, its questions the call's, its end the call's.
   */
  private polled(created: NonNullable<ReturnType<typeof createdTask>>): void {
    if ('problem' in created) {
      this.fail(callError(this.tool, new Error(created.problem), '', 'invalid_result'));
      return;
    }
    const { generation, task } = created;
    const record: TaskRecord = {
      server: this.connection.serverName,
      tool: this.request.remoteName,
      taskId: task.taskId,
      generation,
    };
    this.context
      .record({ recordNS: () => TASK_RECORD_NS, toJSON: () => record } as Recordable)
      .catch((err: unknown) =>
        this.connection.report(
          callError(this.tool, err, `task ${task.taskId}: record: `, 'record'),
        ),
      );
    // Told first: a task seen ended at once still makes the re-serving server's task.
    this.request.relay?.upstreamTask();
    this.follow(generation, task.taskId, task);
  }

  /** Polls the task `taskId` (from `first`, its view as created, when known) until it ends. */
  follow(
    generation: TaskGeneration,
    taskId: string,
    first?: Parameters<RemoteTask['start']>[0],
  ): void {
    // In flight again, without a deadline: the connection's loss fails it at once, and a question
    // the server asks for the task (2025-11-25, naming it in `_meta`) finds it.
    this.deadline = Infinity;
    this.connection.inFlight.add(this);
    this.task = new RemoteTask(this.connection.taskRequest, generation, taskId, {
      progress: (message, status) => {
        if (this.done) return;
        this.subscriber.next({
          final: false,
          result: { output: message, details: { message, task: { taskId, status } } },
        });
      },
      elicit: (question) => (this.done ? undefined : this.context.elicit(question)),
      completed: (result) => this.answered(result),
      failed: (error) => this.fail(callError(this.tool, error, `task ${taskId}: `)),
    });
    this.task.start(first);
  }

  /** The subscription's teardown: an unsubscribe before the answer cancels the request. */
  unsubscribe(): void {
    this.task?.cancel();
    if (this.done) return;
    const error = new CancelledError();
    this.cancel(String(error));
    this.end();
    this.ended({ error });
  }

  /** Ends the request: by its signal when it has one, else by `notifications/cancelled`. */
  private cancel(reason: string): void {
    if (this.controller !== undefined) {
      this.connection.router.unroute(this.token);
      this.controller.abort(new Error(reason));
    } else this.connection.router.cancel(this.token, reason);
  }

  private end(): void {
    this.task?.stop();
    this.done = true;
    this.rootsAsked?.drop();
    this.connection.inFlight.delete(this);
    this.connection.router.unroute(this.token);
  }

  private answered(result: CallToolResult): void {
    if (this.done) return;
    this.connection.inFlight.delete(this);
    this.connection.router.unroute(this.token);
    const created = this.task === undefined ? createdTask(result) : undefined;
    if (created !== undefined) {
      this.polled(created);
      return;
    }
    const settled = this.connection.settle(this.readOnly);
    const records = recordsOf(result, this.connection.serverName);
    if (records.length === 0) {
      if (settled === undefined) this.finish(result);
      else
        settled.then(
          () => this.finish(result),
          () => this.finish(result),
        );
      return;
    }
    // The records the server's call made are written here, through the calling job's recorder,
    // before the call ends: success or failure, the side effect happened.
    const written = recordInOrder(records, this.context).then(({ dropped, reason }) => {
      if (dropped > 0)
        this.connection.report(
          new McpCallError(
            this.tool,
            `mcp: call "${this.tool}": dropped ${dropped} of the ${records.length} records the server sent: ${reason}`,
            undefined,
            'record',
          ),
        );
    });
    Promise.all([written, settled?.catch(() => undefined)]).then(
      () => this.finish(result),
      (err: unknown) => this.fail(callError(this.tool, err, 'record: ', 'record')),
    );
  }

  private finish(result: CallToolResult): void {
    if (this.done) return;
    this.done = true;
    this.rootsAsked?.drop();
    const subscriber = this.subscriber;
    if (result.isError === true) {
      const text = errorTextOf(result);
      this.ended({ toolError: text });
      subscriber.error(new RemoteToolError(this.tool, text, result));
      return;
    }
    let mapped: ToolResult;
    try {
      mapped = resultFromMcp(result);
    } catch (err) {
      // structuredContent too deep for JSON.stringify: the server's fault, this call's end.
      const error = callError(this.tool, err, 'invalid result: ', 'invalid_result');
      this.ended({ error });
      subscriber.error(error);
      return;
    }
    this.ended({});
    subscriber.next({ final: true, result: mapped });
    subscriber.complete();
  }

  /**
   * The server refused the call until the person visits `pages` (-32042), so it never ran: each
   * is asked in turn, and the call is sent again once every one was accepted; a page declined or
   * dismissed fails the call, naming it.
   */
  private async visit(pages: readonly ElicitUrlRequest[], err: unknown): Promise<void> {
    const visited = await visitPages(pages, (page) => this.elicit(page));
    if (visited === undefined || this.done) return;
    if (visited === 'visited') return this.start();
    const { page, why } = visited;
    const text = `the server needs ${page.url} visited first (${why}): ${oneLine(describeThrown(err))}`;
    this.fail(
      new McpCallError(this.tool, `mcp: call "${this.tool}": ${text}`, err, 'page_declined'),
    );
  }

  private failed(err: unknown): void {
    const connection = this.connection;
    connection.inFlight.delete(this);
    if (connection.isClosed()) {
      this.fail(connection.lostError(this.tool));
      return;
    }
    const pages = this.done || !connection.urlQuestions ? undefined : pagesOf(err);
    if (pages !== undefined && this.pageRounds > 0) {
      this.pageRounds--;
      connection.router.unroute(this.token);
      void this.visit(pages, err);
      return;
    }
    const lost = !this.done && isConnectionLost(err);
    if (lost && this.reissues > 0) {
      // Its response broke before the answer, and running it again is safe: send it again.
      this.reissues--;
      connection.router.unroute(this.token);
      this.start();
      return;
    }
    const error = callError(this.tool, err);
    if (lost && this.request.reissues === 0)
      error.message += '; not sent again: its replay is not safe';
    this.fail(error);
  }
}
