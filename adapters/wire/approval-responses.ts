import type { Approval } from '../../operators/job.js';

/**
 * The approvals a client answered, read from the UI messages it sends back (the AI SDK's
 * `UIMessage[]`, after `addToolApprovalResponse`): each tool part in state `approval-responded`,
 * by its call id, as the {@link Approval} the loop's `approve` returns: `true`, `false`, or
 * `{ approved: false, reason }` when the person gave a reason.
 *
 * The messages come from a client, so nothing in them is trusted: a part that is not such a tool
 * part (no `toolCallId` string, an `approval.approved` that is not a boolean, a `reason` that is
 * not a string) is passed over, and a call answered twice keeps its last answer. The one error is
 * `messages` not being an array, a TypeError.
 *
 * ## Example
 *
 * ```ts
 * const answers = approvalResponses(body.messages);
 * for (const [callId, approval] of answers) pending.get(callId)?.resolve(approval);
 * ```
 *
 * @param messages The UI messages as the client sent them (parsed JSON).
 * @return The answers by call id, in the order the messages hold them.
 */
export function approvalResponses(messages: unknown): Map<string, Approval> {
  if (!Array.isArray(messages))
    throw new TypeError('approvalResponses: messages is not an array of UI messages');
  const answers = new Map<string, Approval>();
  for (const message of messages) {
    const parts: unknown = isRecord(message) ? message.parts : undefined;
    if (!Array.isArray(parts)) continue;
    for (const part of parts) {
      const answer = answeredPart(part);
      if (answer !== undefined) answers.set(answer.callId, answer.approval);
    }
  }
  return answers;
}

/** The call id and answer of a tool part in state `approval-responded`; undefined for any other. */
function answeredPart(part: unknown): { callId: string; approval: Approval } | undefined {
  if (!isRecord(part) || part.state !== 'approval-responded') return undefined;
  const { type, toolCallId, approval } = part;
  const isToolPart =
    typeof type === 'string' && (type.startsWith('tool-') || type === 'dynamic-tool');
  if (!isToolPart || typeof toolCallId !== 'string' || !isRecord(approval)) return undefined;
  const { approved, reason } = approval;
  if (typeof approved !== 'boolean') return undefined;
  if (approved || reason === undefined || reason === '')
    return { callId: toolCallId, approval: approved };
  if (typeof reason !== 'string') return undefined;
  return { callId: toolCallId, approval: { approved: false, reason } };
}

/** An object whose own properties may be read: not null, not an array. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
