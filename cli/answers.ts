/**
 * `agenttool run --answer`: scripted answers to the tools' questions, used in the order the
 * questions are asked.
 *
 * @module
 */
import type { ElicitResult, Elicitor, ToolCall } from '../index.js';
import { checkAnswer } from './ui/check-answer.js';
import { UsageError } from './usage-error.js';

const USAGE =
  '--answer takes "decline", "cancel", or a JSON object: the form\'s content, or an answer ' +
  '{"action": "accept", "content": {...}}';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * One `--answer` value: `decline`, `cancel`, a JSON object with `action` (an MCP elicitation
 * result), or any other JSON object, the content of an accepted answer.
 * @throws UsageError for anything else.
 */
export function parseAnswer(text: string): ElicitResult {
  const word = text.trim();
  if (word === 'decline' || word === 'cancel') return { action: word };
  let value: unknown;
  try {
    value = JSON.parse(word);
  } catch {
    throw new UsageError(`${USAGE}, got ${JSON.stringify(text)}`);
  }
  if (!isObject(value)) throw new UsageError(`${USAGE}, got ${JSON.stringify(text)}`);
  if (!('action' in value)) return { action: 'accept', content: value as Record<string, string> };
  if (value.action === 'decline' || value.action === 'cancel') return { action: value.action };
  if (value.action === 'accept' && isObject(value.content))
    return { action: 'accept', content: value.content as Record<string, string> };
  throw new UsageError(`${USAGE}, got ${JSON.stringify(text)}`);
}

const DECLINE: ElicitResult = { action: 'decline' };

/**
 * Answers each question with the next scripted answer, in the order the questions are asked
 * (`--sequential` makes that the model's order); once they are used up, declines. Accepted
 * content is checked against the question's schema as the web front checks a person's answer
 * (see ui/check-answer.ts): content that does not fit is not given to the tool, the question is
 * declined, and `notice` gets one line saying why (`asker` names the call for it). A URL
 * question is answered in turn like any other (`{}` accepts: the person visited the page before
 * the run); its page is told to `notice` too, so nobody is sent anywhere unseen.
 */
export function scriptedElicitor(
  answers: readonly ElicitResult[],
  notice: (line: string) => void = () => undefined,
  asker: (call: ToolCall) => string = (call) => call.id,
): Elicitor {
  let next = 0;
  return (request, call) => {
    const number = ++next;
    const answer = answers[number - 1] ?? DECLINE;
    if (request.mode === 'url') {
      notice(
        `agenttool: ${asker(call)} asks for a visit to ${request.url} (${JSON.stringify(request.message)}): ` +
          `--answer ${number} answers ${answer.action}`,
      );
      return answer;
    }
    if (answer.action !== 'accept') return answer;
    const wrong = checkAnswer(request.schema, answer.content);
    if (wrong === undefined) return answer;
    const asked =
      request.message.length > 60 ? `${request.message.slice(0, 59)}…` : request.message;
    notice(
      `agenttool: --answer ${number} does not fit the question of ${asker(call)} ` +
        `(${JSON.stringify(asked)}): ${wrong}; declined`,
    );
    return DECLINE;
  };
}
