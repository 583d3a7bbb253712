/**
 * Checks a person's answer to a tool's question before it reaches the tool: the body the page
 * POSTs must be an ElicitResult, and accepted content must fit the question's flat schema, by the
 * check the engine applies to every elicitor's answer (lib/check-answer.ts). Each check answers
 * with one line saying what is wrong, or undefined.
 *
 * @module
 */
import type { ElicitResult } from '../../index.js';
// Straight to the file rather than the barrel: the page bundles this module.
export { checkAnswer } from '../../lib/check-answer.js';

type Value = string | number | boolean | string[];

/**
 * A POSTed answer read as an ElicitResult: `{ "action": "accept", "content": {...} }`,
 * `{ "action": "decline" }` or `{ "action": "cancel" }`; a string says what is wrong.
 */
export function parseAnswer(body: unknown): ElicitResult | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'the answer must be a JSON object with an "action"';
  const { action, content } = body as { action?: unknown; content?: unknown };
  if (action === 'decline' || action === 'cancel') return { action };
  if (action !== 'accept') return '"action" must be "accept", "decline" or "cancel"';
  if (typeof content !== 'object' || content === null || Array.isArray(content))
    return 'an accepted answer carries its "content" as an object';
  return { action, content: content as Record<string, Value> };
}
