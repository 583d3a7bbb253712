/**
 * A served call's questions asked of the MCP client: `context.elicit` as `elicitation/create`.
 *
 * @module
 */
import type {
  ClientCapabilities,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult as McpElicitResult,
  Server,
  ServerContext,
} from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import { Observable, of } from 'rxjs';
import type { ElicitRequest, ElicitResult, Elicitor } from '../../lib/contract.js';
import { CancelledError, describeThrown, oneLine } from '../../lib/errors.js';
import { CALL_TOKEN, callTokenOf } from '../mcp-shared/call-token.js';

/** A question waits for a person: no timeout but the call's own end (the longest a timer waits). */
const NO_TIMEOUT = 2_147_483_647;

/** The elicitation modes a client declared: which questions it can be asked. */
export interface ElicitationModes {
  /** Form questions (`mode: 'form'`, or no mode). */
  readonly form: boolean;
  /** URL questions (`mode: 'url'`). */
  readonly url: boolean;
}

/**
 * The elicitation modes the client declared in `capabilities`: by default those it gave on
 * initialize; a request of MCP 2026-07-28 carries its own (see `clientCapabilitiesOf`). An empty
 * `elicitation: {}` means form only; no `elicitation`, neither.
 */
export function elicitationModes(
  server: Server,
  capabilities: ClientCapabilities | undefined = server.getClientCapabilities(),
): ElicitationModes {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (elicitation === undefined || elicitation === null) return { form: false, url: false };
  const url = elicitation.url !== undefined && elicitation.url !== null;
  return { form: elicitation.form !== undefined || !url, url };
}

/** Whether the client declared elicitation in any mode (see {@link elicitationModes}). */
export function clientElicits(
  server: Server,
  capabilities: ClientCapabilities | undefined = server.getClientCapabilities(),
): boolean {
  const modes = elicitationModes(server, capabilities);
  return modes.form || modes.url;
}

/** Whether a client that declared `modes` may be asked `request` (MCP forbids other modes). */
export function mayAsk(modes: ElicitationModes, request: ElicitRequest): boolean {
  return request.mode === 'url' ? modes.url : modes.form;
}

/**
 * `request` as `elicitation/create` parameters: a form with its schema as `requestedSchema`, a
 * page with its URL (and, for a client of the initialize era, `elicitationId`, which MCP
 * 2026-07-28 dropped).
 */
export function elicitParams(
  request: ElicitRequest,
  elicitationId: string | undefined,
): ElicitRequestFormParams | ElicitRequestURLParams {
  if (request.mode === 'url') {
    const url = { mode: 'url', message: request.message, url: request.url } as const;
    return (
      elicitationId === undefined ? url : { ...url, elicitationId }
    ) as ElicitRequestURLParams;
  }
  return {
    mode: 'form',
    message: request.message,
    requestedSchema: request.schema as ElicitRequestFormParams['requestedSchema'],
  };
}

const DECLINED_AT_ONCE: ElicitResult = Object.freeze({ action: 'decline' });

/** The client's answer as the tool sees it; an accept without content is an empty form. */
function answerOf(result: McpElicitResult): ElicitResult {
  if (result.action === 'accept')
    return { action: 'accept', content: (result.content ?? {}) as Record<string, string> };
  return { action: result.action };
}

/**
 * What the client said when it failed a question, in one line: the SDK's error reads
 * `MCP error <code>: <the client's message>`, and only the client's message is news.
 */
function clientText(err: unknown): string {
  return oneLine(describeThrown(err)).replace(/^MCP error -?\d+: /, '');
}

/**
 * The elicitor of one served call: each question is an `elicitation/create` request to the client,
 * sent as part of the call's request (through the request's context, so Streamable HTTP carries it on the
 * call's own stream), with the tool's message and its schema as `requestedSchema`. The client's
 * answer (checked against the schema by the SDK) is the tool's; the call's token, read from the
 * request's `meta` (see `callTokenOf`), goes back with the question, so an agenttool client knows
 * the call; a failure (the client answers an error, or content the schema refuses) is passed to
 * `report` and the tool's question ends with `cancel`. When the call ends first, the request is
 * cancelled (`notifications/cancelled`). With `asGiven` (a proxy's remote tool, relaying another
 * server's question), the answer is not checked here: it goes back as the person gave it, for the
 * server that asked to judge. Undefined when the client did not declare elicitation: the call's
 * questions are then declined at once; so is a question in a mode the client did not declare (a
 * URL question to a client of forms only), never sent. A URL question carries a fresh
 * `elicitationId`, as MCP 2025-11-25 asks.
 */
export function clientElicitor(
  server: Server,
  ctx: ServerContext,
  report: (error: Error) => void,
  meta: unknown,
  asGiven = false,
): Elicitor | undefined {
  const modes = elicitationModes(server);
  if (!modes.form && !modes.url) return undefined;
  const token = callTokenOf(meta);
  return (request) => {
    // MCP forbids asking in a mode the client did not declare: nobody can answer it.
    if (!mayAsk(modes, request)) return of(DECLINED_AT_ONCE);
    return new Observable<ElicitResult>((subscriber) => {
      const controller = new AbortController();
      let settled = false;
      const params = elicitParams(request, randomUUID());
      if (token !== undefined) params._meta = { [CALL_TOKEN]: token };
      const options = { signal: controller.signal, timeout: NO_TIMEOUT };
      // A question relayed for another server (a proxy's remote tool) goes back as the person gave
      // it, for that server to judge; the SDK's elicitInput would check it against the schema.
      const asked = asGiven
        ? ctx.mcpReq.send({ method: 'elicitation/create', params }, options)
        : ctx.mcpReq.elicitInput(params, options);
      asked.then(
        (result) => {
          settled = true;
          subscriber.next(answerOf(result));
          subscriber.complete();
        },
        (err: unknown) => {
          settled = true;
          if (!controller.signal.aborted)
            report(new Error(`mcp server: elicitation: ${clientText(err)}`));
          subscriber.error(err);
        },
      );
      return () => {
        if (!settled) controller.abort(new CancelledError());
      };
    });
  };
}
