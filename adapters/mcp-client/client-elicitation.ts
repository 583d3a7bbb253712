/**
 * A server's questions (`elicitation/create`) answered for the client: through the context of the
 * call they belong to, or the session's fallback elicitor.
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/client';
import type {
  ClientCapabilities,
  ElicitResult as McpElicitResult,
} from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { firstValueFrom, isObservable } from 'rxjs';
import type {
  ElicitRequest,
  ElicitResult,
  ElicitSchema,
  Elicitor,
  ToolCall,
} from '../../lib/contract.js';
import { elicitUrlProblem } from '../../lib/elicit-url.js';
import { callTokenOf } from '../mcp-shared/call-token.js';
import { callOf, relatedTaskOf } from './asking-call.js';
import type { InFlightCall } from './remote-tool.js';

/**
 * What the client declares: form questions, and URL questions when `url` (see
 * `McpClientOptions.urlElicitation`). It fills a schema's defaults into an accept itself (see
 * `withDefaults`), where it answers for its own person; the SDK's `applyDefaults` would fill them
 * into a proxy's relayed answers too.
 */
export function elicitationCapability(url: boolean): ClientCapabilities {
  return { elicitation: url ? { form: {}, url: {} } : { form: {} } };
}

/**
 * `answer` with the question's defaults filled in: each top-level property of `schema` with a
 * `default`, missing from an accepted answer's content, gets it (SEP-1034).
 */
function withDefaults(answer: McpElicitResult, schema: unknown): McpElicitResult {
  if (answer.action !== 'accept' || typeof schema !== 'object' || schema === null) return answer;
  const properties = (schema as { properties?: unknown }).properties;
  if (typeof properties !== 'object' || properties === null) return answer;
  let content = answer.content ?? {};
  for (const [key, property] of Object.entries(properties as Record<string, unknown>)) {
    if (Object.hasOwn(content, key) || typeof property !== 'object' || property === null) continue;
    if (!Object.hasOwn(property, 'default')) continue;
    content = { ...content, [key]: (property as { default: unknown }).default as never };
  }
  return content === answer.content ? answer : { ...answer, content };
}

const DECLINE: McpElicitResult = { action: 'decline' };

/** The call a question from no single call is asked for: MCP does not say which one. */
const SESSION_CALL: ToolCall = Object.freeze({ id: '', args: '' });

const WENT: McpElicitResult = { action: 'accept' };

/**
 * `answer` as MCP sends it; anything that is not an answer is `cancel`. An accept of a URL
 * question (`url`) carries no content.
 */
function toMcp(answer: unknown, url = false): McpElicitResult {
  const a = answer as Partial<ElicitResult> | null | undefined;
  if (a?.action === 'accept' && url) return WENT;
  if (a?.action === 'accept' && typeof a.content === 'object' && a.content !== null)
    return { action: 'accept', content: { ...a.content } };
  if (a?.action === 'decline') return DECLINE;
  return { action: 'cancel' };
}

/**
 * Throws what a client answers a question in a mode it did not declare (the SDK's clients:
 * `-32602 Client does not support URL-mode elicitation requests`), when `call` relays for such a
 * client (a proxy's call; see relayed-modes.ts): the upstream gets the refusal that client would
 * give, as a JSON-RPC error. In MCP 2026-07-28 an error would end the upstream's whole call
 * (`inputRequests` carry answers only), so there the question is left to be declined.
 */
function refuseUndeclaredMode(client: Client, call: InFlightCall | undefined, url: boolean): void {
  const modes = call?.relays === true ? call.relayedModes : undefined;
  if (modes === undefined || (url ? modes.url : modes.form)) return;
  if (client.getProtocolEra() === 'modern') return;
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Client does not support ${url ? 'URL' : 'form'}-mode elicitation requests`,
  );
}

/** Asks `elicitor` outside any call: its answer, or `cancel` when it fails. */
async function askSession(elicitor: Elicitor, request: ElicitRequest): Promise<McpElicitResult> {
  try {
    const answer = elicitor(request, SESSION_CALL);
    return toMcp(
      isObservable(answer) ? await firstValueFrom(answer) : await answer,
      request.mode === 'url',
    );
  } catch {
    return { action: 'cancel' };
  }
}

/**
 * Answers the server's questions on `client` (which must have declared
 * {@link elicitationCapability}). A question belongs to a call, and is asked through its
 * `context.elicit` (so it shows on that call, and its executor answers it, or declines when it has
 * no elicitor): the call whose token it carries (an agenttool server returns it, see
 * `CALL_TOKEN`), else the only call of the session running, since MCP does not say which request a
 * question belongs to. One that belongs to no call goes to `fallback`, or is declined without one.
 * A URL question (the client declared URL mode) is asked as `{ mode: 'url', message, url }`; one
 * whose URL `elicitUrlProblem` refuses (a `javascript:` URL, credentials in it) is declined
 * without being shown, and `report`ed. In MCP 2026-07-28 a question keeps the key the server gave
 * it (`ElicitRequest.key`), so a proxy asks its own client under the upstream's key.
 */
export function answerQuestions(
  client: Client,
  inFlight: ReadonlySet<InFlightCall>,
  fallback: Elicitor | undefined,
  report: (error: Error) => void,
): void {
  // In MCP 2026-07-28 a question arrives in a result's `inputRequests`, and the SDK hands it over
  // with its key as the request id; a relaying server asks under the same key, so a proxy's client
  // sees the upstream's key. Before, the id is a JSON-RPC id and names no question.
  const keyOf = (id: unknown): { key?: string } =>
    client.getProtocolEra() === 'modern' && typeof id === 'string' ? { key: id } : {};
  client.setRequestHandler('elicitation/create', async (request, ctx) => {
    const params = request.params;
    let question: ElicitRequest;
    let schema: unknown;
    if (params.mode === 'url') {
      const problem = elicitUrlProblem(params.url);
      if (problem !== undefined) {
        report(new Error(`mcp: a URL question was declined unseen: ${problem}`));
        return DECLINE;
      }
      question = { mode: 'url', message: params.message, url: params.url, ...keyOf(ctx.mcpReq.id) };
    } else {
      schema = params.requestedSchema;
      question = {
        message: params.message,
        schema: schema as ElicitSchema,
        ...keyOf(ctx.mcpReq.id),
      };
    }
    const url = question.mode === 'url';
    const call = callOf(inFlight, callTokenOf(params._meta), relatedTaskOf(params._meta));
    refuseUndeclaredMode(client, call, url);
    const asked = call?.elicit(question);
    if (asked !== undefined) {
      const answer = toMcp(await asked, url);
      // A relayed answer goes on as given: the server that asked judges it.
      return call!.relays ? answer : withDefaults(answer, schema);
    }
    if (fallback === undefined) return DECLINE;
    return withDefaults(await askSession(fallback, question), schema);
  });
}
