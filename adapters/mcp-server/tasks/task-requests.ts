/**
 * A server of tasks: the SDK's Server with a task's create result as the extension writes it, and
 * the extension's requests (`tasks/get`, `tasks/update`, `tasks/cancel`) answered from the store.
 *
 * @module
 */
import {
  ProtocolErrorCode,
  Server,
  type JSONRPCRequest,
  type Result,
  type ServerContext,
  type Transport,
} from '@modelcontextprotocol/server';
import {
  CancelTaskRequestV2Schema,
  GetTaskRequestV2Schema,
  UpdateTaskRequestV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { clientCapabilitiesOf, protocolError, tasksRequired } from '../era.js';
import { RawInputResponses } from '../held/raw-input-responses.js';
import { declaresTasks, taskHostOf, wireTask, type TaskOptions } from './task-host.js';

/**
 * The SDK's Server, for a server of tasks: the SDK gives every tools/call result `content: []`
 * when it has none, which a CreateTaskResult must not carry (`content` belongs to the task's
 * result, on `tasks/get`).
 */
export class TaskServer extends Server {
  /** The `inputResponses` of `tasks/update` requests as sent (see held/raw-input-responses.ts). */
  readonly rawInput = new RawInputResponses();

  override async connect(transport: Transport): Promise<void> {
    this.rawInput.watch(transport);
    await super.connect(transport);
  }

  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'tools/call') return wrapped;
    return async (request, ctx) => {
      const result = (await wrapped(request, ctx)) as Result & { content?: unknown };
      if (result.resultType !== 'task') return result;
      const { content, ...task } = result;
      return Array.isArray(content) && content.length === 0 ? task : result;
    };
  }
}

/**
 * Answers the tasks extension's requests on `server` from `tasks.store`; a client that did not
 * declare the extension is refused (-32021), as the extension says.
 */
export function answerTaskRequests(
  server: TaskServer,
  tasks: TaskOptions,
  report: (error: Error) => void,
): void {
  const host = () => taskHostOf(tasks.store, report);
  const gate = (ctx: { mcpReq: unknown }, method: string): void => {
    if (!declaresTasks(clientCapabilitiesOf(server, ctx)))
      throw tasksRequired(`${method} is the tasks extension's`);
  };
  server.setRequestHandler(
    'tasks/get',
    { params: GetTaskRequestV2Schema.shape.params },
    async (params, ctx) => {
      gate(ctx, 'tasks/get');
      return wireTask(await host().get(params.taskId)) as unknown as Record<string, unknown>;
    },
  );
  server.setRequestHandler(
    'tasks/update',
    // The SDK lifts `inputResponses` out of a request's params (MCP 2026-07-28's multi
    // round-trip field) into ctx.mcpReq.inputResponses: checked there.
    { params: UpdateTaskRequestV2Schema.shape.params.omit({ inputResponses: true }) },
    async (params, ctx) => {
      gate(ctx, 'tasks/update');
      const sent = server.rawInput.take(ctx.mcpReq.id);
      if (sent !== undefined)
        throw protocolError(
          ProtocolErrorCode.InvalidParams,
          `tasks/update: inputResponses must be an object of answers by question key, got ${sent}`,
        );
      // An answer to a key not open is ignored (the extension's rule), whatever it holds: only
      // the answers the task waits for are read, each as an elicitation result.
      const responses = ctx.mcpReq.inputResponses as unknown;
      if (typeof responses !== 'object' || responses === null || Array.isArray(responses))
        throw protocolError(
          ProtocolErrorCode.InvalidParams,
          'tasks/update: inputResponses must be an object of answers by question key',
        );
      await host().update(params.taskId, responses as Record<string, unknown>);
      return {};
    },
  );
  server.setRequestHandler(
    'tasks/cancel',
    { params: CancelTaskRequestV2Schema.shape.params },
    async (params, ctx) => {
      gate(ctx, 'tasks/cancel');
      await host().cancel(params.taskId);
      return {};
    },
  );
}
