/**
 * The `tools/call` handler of `createMcpServer`: one request read once, then sent down one of four
 * named routes, each a short method:
 *
 * - `asTask`: a task tool called by a client that declared the tasks extension (MCP 2026-07-28);
 *   its opening questions are asked in the request when the client answers questions
 *   (tasks/opening-questions.ts), and the call becomes a task (tasks/task-host.ts);
 * - `retry`: a 2026-07-28 retry carrying `requestState`, the answers of a held call's questions;
 * - `held`: a 2026-07-28 call of a client that answers questions, held while it answers
 *   (held/held-calls.ts);
 * - `direct`: every other call, run in the request (a 2025-11-25 call's questions go to its
 *   session as `elicitation/create`).
 *
 * What differs between the eras is read in era.ts.
 *
 * @module
 */
import {
  MissingRequiredClientCapabilityError,
  ProtocolErrorCode,
  type CallToolRequest,
  type CallToolResult,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Session } from '../../lib/contract.js';
import { ValidationError } from '../../lib/errors.js';
import { callTokenOf } from '../mcp-shared/call-token.js';
import { asksForRecords } from '../mcp-shared/mcp-records.js';
import { sendCallLog } from './call-log.js';
import { clientElicitor, elicitationModes, type ElicitationModes } from './client-elicitor.js';
import {
  clientCapabilitiesOf,
  isModern,
  missingCapabilities,
  protocolError,
  tasksRequired,
} from './era.js';
import { HeldCall, heldCall, questionTimeoutOf } from './held/held-calls.js';
import { openState, stateSigningOf } from './held/request-state.js';
import { declaresRoots, relaysRoots } from './roots-relay.js';
import { callOf, refusalAsFailure, servedOf, type Routed, type Speaker } from './routed-call.js';
import { failure, runServedCall, type ServedCall } from './served-call.js';
import { taskOf, type ServedList } from './served-list.js';
import type { McpServerOptions } from './server-options.js';
import { heldCalls, startedTasks } from './server-state.js';
import { OpeningCall, openingOf } from './tasks/opening-questions.js';
import { declaresTasks, taskHostOf, type TaskOptions } from './tasks/task-host.js';

type Ctx = ServerContext;
/** A call's answer: its result, or (MCP 2026-07-28) the questions a held call waits on. */
type Answer = CallToolResult | Promise<CallToolResult> | ReturnType<HeldCall['answer']>;

/** Routes the `tools/call` requests of one server (see the module's comment). */
export class CallRouter {
  private readonly questionTimeout: number;
  private readonly tasks: TaskOptions | undefined;

  constructor(
    private readonly server: Server,
    private readonly list: ServedList,
    private readonly options: McpServerOptions,
    private readonly report: (error: Error) => void,
    private readonly sessionOf: (transportId: string | undefined) => Session | undefined,
  ) {
    this.questionTimeout = questionTimeoutOf(options);
    this.tasks = options.tasks;
  }

  /** Answers one `tools/call` request. */
  route(request: CallToolRequest, ctx: Ctx): Answer {
    const routed = this.read(request, ctx);
    if ('answer' in routed) return routed.answer;
    if (this.relaysTask(routed, ctx)) return this.relayedTask(routed, ctx);
    if (this.takesTask(routed, ctx)) return this.asTask(routed, ctx);
    // A modern client that may be asked (elicitation; roots, for a proxied call) is held while it
    // answers. Any other call runs directly, its questions declined at once.
    if (!routed.modern) return this.direct(routed, ctx);
    const state = ctx.mcpReq.requestState<unknown>();
    if (state !== undefined) return this.retry(routed.name, state, ctx);
    const modes = elicitationModes(this.server, routed.capabilities);
    return modes.form || modes.url || this.asksRoots(routed)
      ? this.held(routed, modes, ctx)
      : this.direct(routed, ctx);
  }

  /**
   * Whether a modern call's client is asked for its roots when its upstream asks for them: a
   * proxied call, of a server made with a RootsRelay, by a client that declared `roots`
   * (relayed-roots.ts).
   */
  private asksRoots(routed: Routed): boolean {
    return (
      routed.entry.tool.remote !== undefined &&
      relaysRoots(this.server) &&
      declaresRoots(routed.capabilities)
    );
  }

  /**
   * The request read: its tool (an unknown name is InvalidParams, as MCP says), the client
   * capabilities the tool needs (-32021 when missing), its arguments as text (or the failure
   * that answers arguments too deep to write).
   */
  private read(request: CallToolRequest, ctx: Ctx): Routed | { answer: Answer } {
    const { name, _meta: meta } = request.params;
    const entry = this.list.current().entries.get(name);
    if (entry === undefined) {
      const unknown = this.options.unknownTool;
      if (unknown !== undefined) return { answer: unknown(name, request.params.arguments) };
      throw protocolError(ProtocolErrorCode.InvalidParams, `unknown tool "${name}"`);
    }
    this.checkCapabilities(name, ctx);
    const args = request.params.arguments;
    let text: string;
    try {
      text = args === undefined ? '' : JSON.stringify(args);
    } catch {
      // JSON.stringify recurses: arguments thousands of levels deep overflow the stack here,
      // before the validator's depth limit sees them.
      return { answer: failure(new ValidationError('', 'arguments are nested too deeply')) };
    }
    return {
      entry,
      name,
      text,
      meta,
      call: callOf(String(ctx.mcpReq.id), text, meta),
      modern: isModern(this.server),
      capabilities: clientCapabilitiesOf(this.server, ctx),
    };
  }

  /** Refuses (-32021) a call of a tool that needs client capabilities this client lacks. */
  private checkCapabilities(name: string, ctx: Ctx): void {
    const needs = this.options.requiredCapabilities;
    const required = needs !== undefined && Object.hasOwn(needs, name) ? needs[name] : undefined;
    if (required === undefined) return;
    const missing = missingCapabilities(required, clientCapabilitiesOf(this.server, ctx));
    if (missing !== undefined)
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: missing },
        `tool "${name}" needs the client capabilities ${JSON.stringify(missing)}, which this client did not declare`,
      );
  }

  /**
   * Whether the call becomes a task: a task tool, served with tasks, called (not retried) by a
   * 2026-07-28 client that declared the extension. A tool that runs only as a task is refused
   * (-32021) to a client that did not declare it; its retry carries on as a held call.
   */
  private takesTask(routed: Routed, ctx: Ctx): boolean {
    const { entry, name } = routed;
    const task = entry.tool.remote === undefined ? taskOf(entry.tool) : undefined;
    if (this.tasks === undefined || task === undefined || task === false) return false;
    const declares = routed.modern && declaresTasks(routed.capabilities);
    if (!declares && task === 'required') throw tasksRequired(`tool "${name}" runs only as a task`);
    return declares && ctx.mcpReq.requestState() === undefined;
  }

  /**
   * Whether a proxied call may become this server's own task: served with tasks, called (not
   * retried) by a 2026-07-28 client that declared the extension (see task-relay.ts).
   */
  private relaysTask(routed: Routed, ctx: Ctx): boolean {
    return (
      routed.entry.tool.remote !== undefined &&
      this.tasks !== undefined &&
      routed.modern &&
      ctx.mcpReq.requestState() === undefined &&
      declaresTasks(routed.capabilities)
    );
  }

  /**
   * The `asTask` route of a proxied call: it becomes this server's own task once its server makes
   * it one (see task-relay.ts); until then its questions and its end answer the request.
   */
  private relayedTask(routed: Routed, ctx: Ctx): Answer {
    const modes = elicitationModes(this.server, routed.capabilities);
    return this.opening(routed, modes, ctx, true);
  }

  /**
   * A call whose opening questions are asked in the request (tasks/opening-questions.ts): held
   * until it becomes a task. A proxied one (`proxied`) may ask its client for roots, and its
   * server's logs reach the client while no task speaks for it.
   */
  private opening(routed: Routed, modes: ElicitationModes, ctx: Ctx, proxied: boolean): Answer {
    const tasks = this.tasks!;
    const token = callTokenOf(routed.meta);
    const held = new HeldCall(
      routed.name,
      this.questionTimeout,
      ctx.mcpReq.inputResponses,
      token,
      modes,
    );
    heldCalls.set(this.server, held);
    const makeTask = () =>
      taskHostOf(tasks.store, this.report).create(routed.name, tasks, modes, token);
    const opening = new OpeningCall(held, makeTask, proxied);
    const served = this.servedOf(routed, {
      session: undefined,
      signal: opening.signal,
      progressToken: opening.progressToken,
      notify: opening.notify,
      elicitor: opening.elicitor,
      roots: proxied && this.asksRoots(routed) ? opening.roots : undefined,
      log: proxied ? opening.log : undefined,
      sendRecords: asksForRecords(routed.meta),
    });
    return this.runOpening(opening, served, ctx, proxied);
  }

  /**
   * Runs `served` as an opening call (tasks/opening-questions.ts) and answers its first request.
   * A proxied call's upstream refusal answers the request while no task speaks for the call; any
   * other call's is an `isError` result (see `refusalAsFailure`).
   */
  private runOpening(
    opening: OpeningCall,
    served: ServedCall,
    ctx: Ctx,
    proxied: boolean,
  ): Promise<CallToolResult> {
    const run = runServedCall({
      ...served,
      onFailure: opening.onFailure,
      ...(proxied ? { taskRelay: opening.relay } : {}),
    });
    if (proxied)
      void Promise.resolve(run).then(
        (result) => opening.finish(result),
        (refusal: Error) => opening.refuse(refusal),
      );
    else void refusalAsFailure(run).then((result) => opening.finish(result));
    return this.answerOpening(opening, ctx, true);
  }

  /** The `asTask` route: arguments it would fail on answered at once, else a task. */
  private asTask(routed: Routed, ctx: Ctx): Answer {
    try {
      routed.entry.precheck?.parse(routed.text);
    } catch (err) {
      return failure(err);
    }
    const modes = elicitationModes(this.server, routed.capabilities);
    return modes.form || modes.url
      ? this.openingTask(routed, modes, ctx)
      : this.plainTask(routed, modes);
  }

  /**
   * A task tool called by a client that answers questions: its opening questions are asked in
   * the request, and the call becomes a task once it goes on past them (opening-questions.ts).
   */
  private openingTask(routed: Routed, modes: ElicitationModes, ctx: Ctx): Answer {
    return this.opening(routed, modes, ctx, false);
  }

  /** A task tool called by a client that answers no questions: a task at once. */
  private async plainTask(routed: Routed, modes: ElicitationModes): Promise<CallToolResult> {
    const tasks = this.tasks!;
    const token = callTokenOf(routed.meta);
    const sendRecords = asksForRecords(routed.meta);
    const { result, task } = await taskHostOf(tasks.store, this.report).start(
      routed.name,
      tasks,
      modes,
      token,
      (speaker) =>
        refusalAsFailure(
          runServedCall({
            ...this.servedOf(routed, {
              ...speaker,
              session: undefined,
              log: undefined,
              sendRecords,
            }),
            onFailure: speaker.onFailure,
          }),
        ),
    );
    startedTasks.set(this.server, task);
    return result as unknown as CallToolResult;
  }

  /** The `retry` route: the answers of a held call's questions, delivered to it. */
  private retry(name: string, state: unknown, ctx: Ctx): Answer {
    const signing = stateSigningOf(this.server);
    const opened = openState(state, signing.key);
    if (typeof opened === 'string') throw protocolError(ProtocolErrorCode.InvalidParams, opened);
    if (opened.tool !== name)
      throw protocolError(
        ProtocolErrorCode.InvalidParams,
        `requestState belongs to a call of "${opened.tool}", not "${name}"`,
      );
    const call = heldCall(opened.call);
    if (call === undefined)
      throw protocolError(
        ProtocolErrorCode.InvalidParams,
        `the call this requestState names has ended or expired: call "${name}" again`,
      );
    call.deliver(ctx.mcpReq.inputResponses);
    const opening = openingOf(call);
    if (opening === undefined) return call.answer(ctx, signing);
    return this.answerOpening(opening, ctx, declaresTasks(clientCapabilitiesOf(this.server, ctx)));
  }

  /** The `held` route: a call held while its client answers its questions. */
  private held(routed: Routed, modes: ElicitationModes, ctx: Ctx): Answer {
    const call = new HeldCall(
      routed.name,
      this.questionTimeout,
      ctx.mcpReq.inputResponses,
      callTokenOf(routed.meta),
      modes,
    );
    const served = this.servedOf(routed, {
      session: undefined,
      signal: call.signal,
      progressToken: call.progressToken,
      notify: call.notify,
      elicitor: call.elicitor,
      modes,
      roots: this.asksRoots(routed) ? call.roots : undefined,
      log: call.log,
      sendRecords: asksForRecords(routed.meta),
    });
    heldCalls.set(this.server, call);
    void Promise.resolve(runServedCall(served)).then(
      (result) => call.finish(result),
      (refusal: Error) => call.refuse(refusal),
    );
    return call.answer(ctx, stateSigningOf(this.server));
  }

  /**
   * The `direct` route: the call runs in its request. In 2025-11-25 it belongs to its session,
   * and its questions go to the client as `elicitation/create`; MCP 2026-07-28 has no sessions,
   * and a client that declared no elicitation is never asked.
   */
  private direct(routed: Routed, ctx: Ctx): Answer {
    const modern = routed.modern;
    const token = callTokenOf(routed.meta);
    const remote = routed.entry.tool.remote !== undefined;
    return runServedCall(
      this.servedOf(routed, {
        session: modern ? undefined : this.sessionOf(ctx.sessionId),
        signal: ctx.mcpReq.signal,
        progressToken: ctx.mcpReq._meta?.progressToken,
        notify: ctx.mcpReq.notify,
        elicitor: modern
          ? undefined
          : clientElicitor(this.server, ctx, this.report, routed.meta, remote),
        modes: modern ? undefined : elicitationModes(this.server),
        log: (params) => sendCallLog(ctx, token, modern ? undefined : this.server, params),
        sendRecords: asksForRecords(routed.meta),
      }),
    );
  }

  /**
   * Answers a request of an opening call (see tasks/opening-questions.ts), noting the task it
   * became for the HTTP handler (`startedTaskOf`).
   */
  private async answerOpening(
    opening: OpeningCall,
    ctx: Ctx,
    declared: boolean,
  ): Promise<CallToolResult> {
    const result = await opening.next(ctx, stateSigningOf(this.server), declared);
    const task = opening.running;
    if (task !== undefined && (result as { resultType?: unknown }).resultType === 'task')
      startedTasks.set(this.server, task);
    return result as unknown as CallToolResult;
  }

  /** What a call of `routed` needs, with what the request that speaks for it gives: one object. */
  private servedOf(routed: Routed, speaker: Speaker): ServedCall {
    return servedOf(routed, speaker, this.server, this.options, this.report);
  }
}
