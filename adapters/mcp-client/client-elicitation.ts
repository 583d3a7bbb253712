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

/** What the client declares: form questions, with the schema's defaults filled into an accept. */
export const ELICITATION_CAPABILITY = { elicitation: { form: { applyDefaults: true } } } as const;

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
    if (asked !== undefined) return toMcp(await asked);
    return fallback === undefined ? DECLINE : askSession(fallback, question);
  });
}
