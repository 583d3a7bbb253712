/**
 * A server's questions (`elicitation/create`) answered for the client: through the context of the
 * call they belong to, or the session's fallback elicitor.
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/client';
import type { ElicitResult as McpElicitResult } from '@modelcontextprotocol/client';
import { firstValueFrom, isObservable } from 'rxjs';
import type { ElicitRequest, ElicitResult, Elicitor, ToolCall } from '../../lib/contract.js';
import { callTokenOf } from '../mcp-shared/call-token.js';
import type { InFlightCall } from './remote-tool.js';

/**
 * What the client declares: form questions. It fills a schema's defaults into an accept itself
 * (see `withDefaults`), where it answers for its own person; the SDK's `applyDefaults` would fill
 * them into a proxy's relayed answers too.
 */
export const ELICITATION_CAPABILITY = { elicitation: { form: {} } } as const;

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

/** `answer` as MCP sends it; anything that is not an answer is `cancel`. */
function toMcp(answer: unknown): McpElicitResult {
  const a = answer as Partial<ElicitResult> | null | undefined;
  if (a?.action === 'accept' && typeof a.content === 'object' && a.content !== null)
    return { action: 'accept', content: { ...a.content } };
  if (a?.action === 'decline') return DECLINE;
  return { action: 'cancel' };
}

/** The call a question belongs to: the one its token names, else the only one running. */
function callOf(inFlight: ReadonlySet<InFlightCall>, token: string | undefined) {
  if (token !== undefined) for (const call of inFlight) if (call.token === token) return call;
  if (inFlight.size !== 1) return undefined;
  const [only] = inFlight;
  return only;
}

/** Asks `elicitor` outside any call: its answer, or `cancel` when it fails. */
async function askSession(elicitor: Elicitor, request: ElicitRequest): Promise<McpElicitResult> {
  try {
    const answer = elicitor(request, SESSION_CALL);
    return toMcp(isObservable(answer) ? await firstValueFrom(answer) : await answer);
  } catch {
    return { action: 'cancel' };
  }
}

/**
 * Answers the server's form questions on `client` (which must have declared
 * {@link ELICITATION_CAPABILITY}). A question belongs to a call, and is asked through its
 * `context.elicit` (so it shows on that call, and its executor answers it, or declines when it has
 * no elicitor): the call whose token it carries (an agenttool server returns it, see
 * `CALL_TOKEN`), else the only call of the session running, since MCP does not say which request a
 * question belongs to. One that belongs to no call goes to `fallback`, or is declined without one.
 * A URL-mode question is declined: the client declares form mode only.
 */
export function answerQuestions(
  client: Client,
  inFlight: ReadonlySet<InFlightCall>,
  fallback: Elicitor | undefined,
): void {
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params;
    if (params.mode === 'url') return DECLINE;
    const question: ElicitRequest = {
      message: params.message,
      schema: params.requestedSchema as ElicitRequest['schema'],
    };
    const call = callOf(inFlight, callTokenOf(params._meta));
    const asked = call?.elicit(question);
    if (asked !== undefined) {
      const answer = toMcp(await asked);
      // A relayed answer goes on as given: the server that asked judges it.
      return call!.relays ? answer : withDefaults(answer, params.requestedSchema);
    }
    if (fallback === undefined) return DECLINE;
    return withDefaults(await askSession(fallback, question), params.requestedSchema);
  });
}
