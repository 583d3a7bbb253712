/**
 * `createMcpServer()`: Tool values served over MCP, one Server per client connection. It registers
 * the handlers; a `tools/call` goes to the server's {@link CallRouter} (call-router.ts), what it
 * serves is a {@link ServedList} (served-list.ts), its options are in server-options.ts.
 *
 * @module
 */
import type { Observable } from 'rxjs';
import { Server, type Implementation } from '@modelcontextprotocol/server';
import type { Tool } from '../../lib/contract.js';
import { answerSetLevel } from './call-log.js';
import { ServedList, taskOf } from './served-list.js';
import type { McpServerOptions } from './server-options.js';
import { taskStores } from './server-state.js';
import { checkTaskOptions, TASKS_EXTENSION, type TaskOptions } from './tasks/task-host.js';
import { answerTaskRequests, TaskServer } from './tasks/task-requests.js';
import { answersOf, reporterOf } from './tool-answers.js';

export type { McpServerOptions } from './server-options.js';

/**
 * Builds the SDK's low-level `Server` serving `tools`, for one client connection: call it once per
 * connection (`server.connect(transport)`) with the same tool values. Each tool's schema is served
 * as the tool states it, whatever JSON Schema it is, and compiled once per tool value (a second
 * server of the same tools compiles nothing). A tool whose schema cannot be served (it does not
 * compile, a `pattern` included, or is not an object schema) is left out and reported through
 * `onError`; every other tool is served. Patterns of schemas from elsewhere (`rawTool`, plain
 * JSON Schema, remote tools) are matched in linear time; see `compileValidator`.
 *
 * A call's arguments are validated before the tool runs; a problem is an `isError` result reading
 * `Error: invalid arguments: ...`, not a protocol error, so the model can retry. A tool's failure
 * is an `isError` result `Error: <message>` (never a stack); an unknown tool name is a protocol
 * error (InvalidParams), as MCP specifies. Outputs map back to MCP content: text as text, data-URL
 * images as image content, inline files as embedded resources, files at a URL as resource links.
 * Progress is sent when the request carries a progressToken: a ProgressInfo's numbers as they are
 * (so progress proxied through a remote tool keeps them across a second hop), else a counter, with
 * the update's text as the message. The call is cancelled (its observable unsubscribed, its signal
 * aborted) when the client cancels the request or the connection closes.
 *
 * Questions: a tool's `context.elicit({ message, schema })` is an `elicitation/create` request to
 * the client that made the call, sent as part of that call (on its own stream over Streamable
 * HTTP), with the message and the schema as `requestedSchema`; the client's answer is the tool's.
 * A client that did not declare the elicitation capability is never asked: the question is
 * declined at once. When the call is cancelled while a question is open, the request is cancelled
 * too and the tool's question ends with `cancel`. A client's failure to answer (an error, content
 * that does not match the schema) ends the question with `cancel` and is reported to `onError`.
 *
 * Every call's context carries the client's `session`: `id` is unique per connection (the
 * transport's session id, or a generated one) and `client` the name and version the client gave
 * on initialize, so one tool value serving many clients can keep per-client state. Served
 * stateless (`serveHttp({ stateless: true })`), a call belongs to no session: `context.session` is
 * undefined.
 *
 * Annotations: the hints a tool states are served, the others omitted so MCP's defaults apply at
 * the client (an unstated hint is not a claim of harmlessness).
 *
 * Records: what a call's tool records (`context.record(...)`) travels to the client in the call's
 * result, failures included, as `_meta["io.agenttool/records"]`: a list of `{ ns, data }` in the
 * order recorded; a client from `connectMcp` writes them through the calling job's recorder. The
 * result is the only channel, so records reach the client when the call ends (not while it runs),
 * and those of a call the client cancels, which gets no result, or made after the call's result,
 * stay with `options.recorder`.
 *
 * Proxying: a remote tool (one with `remote` set: every tool of `connectMcp`, wrapped or not) is
 * listed as its server listed it, its arguments are left for its server to check, and its results,
 * failures (`isError`) included, are the server's results as they came (content,
 * `structuredContent`, `_meta`), so serving remote tools changes nothing a client sees: its
 * server's log messages go on as log messages (the server then declares `logging`, and the level
 * its client asks for filters them), a question its server asks goes back with the person's answer
 * as given (its server judges it), and records go only to a client that asks for them (see
 * `asksForRecords`).
 *
 * `tools` may be live, an Observable of the lists to serve (`remote.tools$` of `connectMcp`, or
 * several combined): the server declares `tools.listChanged`, serves the latest list, and tells a
 * connected client of each change (`notifications/tools/list_changed`, in 2025-11-25 sessions).
 * A list with a duplicate name is reported and the last good one served.
 *
 * @throws Error for an empty or duplicate tool name (of a list given as it is).
 */
export function createMcpServer(
  info: Implementation,
  tools: Iterable<Tool> | Observable<Iterable<Tool>>,
  options: McpServerOptions = {},
): Server {
  const report = reporterOf(options);
  const list = new ServedList(tools, options, report);
  // A proxy passes its upstream servers' log messages on (see served-call.ts), so it declares
  // logging (and answers logging/setLevel); a server of local tools sends none.
  const proxies = options.declares?.logging ?? (options.logs !== undefined || list.proxies());
  const listChanged = options.declares?.toolsListChanged ?? list.live;
  const tasks = options.tasks;
  if (tasks !== undefined) checkTaskOptions(tasks);
  const server = new (tasks === undefined ? Server : TaskServer)(info, {
    capabilities: {
      tools: listChanged ? { listChanged: true } : {},
      ...(proxies ? { logging: {} } : {}),
      ...(tasks === undefined ? {} : { extensions: { [TASKS_EXTENSION]: {} } }),
    },
    ...(options.listCache === undefined ? {} : { cacheHints: { 'tools/list': options.listCache } }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
  if (proxies) answerSetLevel(server);
  options.logs?.add(server);
  options.roots?.add(server);
  // A list declared not to change (`declares.toolsListChanged` false) is still read live, but no
  // client is told of a change.
  if (listChanged) list.follow(server);
  if (tasks !== undefined) serveTasks(server as TaskServer, list, tasks, report);
  const answers = answersOf(server, list, options, report);
  server.setRequestHandler('tools/list', answers.list);
  server.setRequestHandler('tools/call', answers.call);
  return server;
}

/** Serves calls of task tools as tasks with `tasks.store`, and the extension's requests. */
function serveTasks(
  server: TaskServer,
  list: ServedList,
  tasks: TaskOptions,
  report: (error: Error) => void,
): void {
  taskStores.set(server, (tool) => {
    const task = list.current().entries.get(tool)?.tool;
    const served = task === undefined ? undefined : taskOf(task);
    return served === true || served === 'required' ? tasks.store : undefined;
  });
  answerTaskRequests(server, tasks, report);
}
