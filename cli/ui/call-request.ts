/**
 * The web front's requests about one call (`POST /calls/<i>/cancel|approve|refuse|answer`), as
 * the status and body the server answers with: 202 when taken, 400 for an answer that is not one
 * or does not fit the question, 404 for no such call, 409 when the call cannot take it now or a
 * person decided it already (in another tab, say: the first answer counts).
 *
 * @module
 */
import type { Approval } from '../../index.js';
import { parseAnswer } from './check-answer.js';
import type { CallDecisionOutcome, RunController } from './run-controller.js';

/** What the server answers: a status and `{ ok: true }` or `{ error }`. */
export interface CallReply {
  status: number;
  body: { ok: true } | { error: string };
}

const taken: CallReply = { status: 202, body: { ok: true } };

/** The longest note a person may write beside a decision. */
export const MAX_NOTE_LENGTH = 4000;

/**
 * The engine's answer from an approve or refuse request's body: none (or `{}`) is a plain yes or
 * no; `{ "note": "..." }` adds the person's note for the model, and an approval's
 * `{ "args": {...} }` the arguments they corrected (the engine checks them against the tool's
 * schema). A body of another shape is the one-line reason for a 400.
 */
function approvalOf(approved: boolean, body: unknown): Approval | string {
  if (body === undefined || body === null) return approved;
  if (typeof body !== 'object' || Array.isArray(body))
    return 'the body must be a JSON object: { "note": "..." }';
  const { note, args } = body as { note?: unknown; args?: unknown };
  if (note !== undefined && typeof note !== 'string') return '"note" must be a string';
  if (typeof note === 'string' && note.length > MAX_NOTE_LENGTH)
    return `"note" is ${note.length} characters long; the limit is ${MAX_NOTE_LENGTH}`;
  const given = note === undefined || note.trim() === '' ? undefined : note.trim();
  if (!approved) {
    if (args !== undefined) return 'a refusal takes no "args"';
    return given === undefined ? false : { approved: false, note: given };
  }
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    return '"args" must be a JSON object: the arguments the call runs with';
  if (given === undefined && args === undefined) return true;
  return {
    approved: true,
    ...(given === undefined ? {} : { note: given }),
    ...(args === undefined ? {} : { args: args as { [key: string]: unknown } }),
  };
}
const refuse = (status: number, error: string): CallReply => ({ status, body: { error } });

/**
 * Acts on `action` for call `index` of `runs`' current run; `body` is the request's JSON value
 * (the answer, for `answer`). `live` is false for a replay, which has no call to act on.
 */
export function callRequest(
  runs: RunController,
  live: boolean,
  index: number,
  action: 'cancel' | 'approve' | 'refuse' | 'answer',
  body: unknown,
): CallReply {
  if (action === 'cancel')
    switch (runs.cancelCall(index)) {
      case 'cancelling':
        return taken;
      case 'ended':
        return refuse(409, `call #${index} has ended`);
      case 'not-running':
        return refuse(409, live ? 'no run is going' : 'a replay cannot be cancelled');
      case 'no-such-call':
        return refuse(404, `no call #${index} in this turn`);
    }
  let outcome: CallDecisionOutcome;
  if (action === 'answer') {
    const result = parseAnswer(body);
    if (typeof result === 'string') return refuse(400, result);
    const { question } = body as { question?: unknown };
    if (question !== undefined && !(Number.isInteger(question) && (question as number) >= 1))
      return refuse(400, '"question" must be the question\'s number: 1 for the first a call asks');
    outcome = runs.answerCall(index, result, question as number | undefined);
  } else {
    const approval = approvalOf(action === 'approve', body);
    if (typeof approval === 'string') return refuse(400, approval);
    outcome = runs.decideCall(index, approval);
  }
  switch (outcome) {
    case 'taken':
      return taken;
    case 'not-asked':
      return refuse(
        409,
        `call #${index} is not waiting for ${action === 'answer' ? 'an answer' : 'an approval'}`,
      );
    case 'not-running':
      return refuse(409, live ? 'no run is going' : 'a replay asks nothing');
    case 'no-such-call':
      return refuse(404, `no call #${index} in this turn`);
  }
  if ('already' in outcome)
    return refuse(
      409,
      outcome.already === 'answered'
        ? `call #${index}'s question was answered already; the first answer counts`
        : `call #${index} was ${outcome.already} already; the first answer counts`,
    );
  return refuse(400, outcome.invalid);
}
