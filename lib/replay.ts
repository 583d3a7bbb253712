/**
 * Replay safety: what a tool says about running a call again, and the key a call runs under.
 *
 * @module
 */
import type { Replay, Tool, ToolCall } from './contract.js';

/**
 * Whether a call of `tool` that may already have run can run again: the `replay` the tool states,
 * or `'unsafe'` when it states none (or states something that is not one of the three values).
 *
 * MCP's `readOnlyHint` and `idempotentHint` do not stand in for it: they are hints, which a policy
 * may use to be stricter and never alone to allow something, and running a call twice is allowing
 * it twice. A tool from `connectMcp` therefore reads `'unsafe'`; an application that trusts a server says
 * otherwise with `wrap(remoteTool, { replay: 'safe' })`.
 *
 * @param tool Any tool.
 * @return `'safe'`, `'idempotent'` or `'unsafe'`.
 */
export function replayOf(tool: Tool): Replay {
  const replay = tool.replay;
  return replay === 'safe' || replay === 'idempotent' ? replay : 'unsafe';
}

/**
 * The idempotency key of `call`: the key the application set on it, or else the call id itself. The
 * derivation is stable (the same call gives the same key in every process and every run) and
 * readable in a log; it relies on call ids being unique, as providers make them (`call_...`). A
 * application whose call ids can repeat across turns (a local model numbering its calls `call_0`,
 * `call_1`) sets its own key, for instance `${conversationId}/${turn}/${call.id}`, and keeps it
 * when it resumes the batch.
 *
 * The executor hands every tool its call with the key filled in, so a tool reads
 * `context.call.idempotencyKey` and never needs this function; an application that records calls does.
 * Under the MCP server a call's id is the JSON-RPC request id, which every connection numbers
 * anew, so there the key a tool reads is qualified by the session: `<session id>/<request id>`.
 *
 * @param call A call, with or without a key of the application's.
 * @return The key the call runs under; never empty for a call with an id.
 */
export function idempotencyKeyOf(call: ToolCall): string {
  const key = call.idempotencyKey;
  return typeof key === 'string' && key !== '' ? key : call.id;
}

/**
 * `call` with its idempotency key filled in: `call` itself when it carries one, otherwise a copy of
 * its `id` and `args` with the key of {@link idempotencyKeyOf}, or `<session>/<call id>` for a call
 * served in an MCP session, whose ids are JSON-RPC request ids that repeat across connections.
 */
export function withIdempotencyKey(
  call: ToolCall,
  session?: string,
): ToolCall & { readonly idempotencyKey: string } {
  const key = call.idempotencyKey;
  if (typeof key === 'string' && key !== '')
    return call as ToolCall & { readonly idempotencyKey: string };
  const derived = session === undefined ? call.id : `${session}/${call.id}`;
  // A literal, not a spread: one shape for every call, and cheaper (measured on the compiled
  // bench, `npm run bench -- --only=1 --runs=3`: with a spread, a batch of typed calls went from
  // 0.86x to 1.04x a bare mergeMap's cost).
  return call.trace === undefined
    ? { id: call.id, args: call.args, idempotencyKey: derived }
    : { id: call.id, args: call.args, idempotencyKey: derived, trace: call.trace };
}
