/**
 * A model loop's events, written by hand, for the wire encoders' tests: two turns; in the first
 * the model writes text and five calls, one that reports progress and succeeds, one a person
 * refuses, one that fails, one that asks a question and is approved with a note, one whose
 * arguments are not JSON; in the second it answers in text.
 */
import type { ElicitRequest } from '../../lib/contract.js';
import { NotApprovedError, ValidationError } from '../../lib/errors.js';
import type { FunctionCallItem } from '../../lib/open-responses.js';
import type { Approval, ExecutionEvent } from '../../operators/job.js';
import type { LoopEvent } from '../../operators/loop-events.js';

export function functionCall(callId: string, name: string, args: string): FunctionCallItem {
  return { type: 'function_call', call_id: callId, name, arguments: args };
}

export const read = functionCall('r1', 'read_file', '{"path":"notes.txt"}');
export const remove = functionCall('r2', 'delete_file', '{"path":"/etc/hosts"}');
export const fetchUrl = functionCall('r3', 'fetch_url', '{"url":"http://localhost:9"}');
export const deploy = functionCall('r4', 'deploy', '{}');
export const broken = functionCall('r5', 'read_file', '{"path": ');

export const question: ElicitRequest = {
  message: 'Which environment?',
  schema: {
    type: 'object',
    properties: { env: { type: 'string', enum: ['staging', 'production'] } },
    required: ['env'],
  },
};

const user = { type: 'message', role: 'user', content: 'Tidy up and deploy.' };

type WithoutJob<E> = E extends unknown ? Omit<E, 'index' | 'callId'> : never;

function ev(call: FunctionCallItem, index: number, event: WithoutJob<ExecutionEvent>) {
  const full = { index, callId: call.call_id, ...event } as ExecutionEvent;
  return { type: 'call-event', turn: 1, call, event: full } as const;
}

function approval(call: FunctionCallItem, answer?: Approval) {
  const asked = { type: 'approval', turn: 1, callId: call.call_id, call } as const;
  return answer === undefined ? asked : { ...asked, answer };
}

/** The whole conversation, in the order a loop emits it. */
export function conversation(): LoopEvent[] {
  return [
    { type: 'turn-start', turn: 1, input: [user] },
    { type: 'text-delta', turn: 1, id: 'msg_1', delta: 'Let me ' },
    { type: 'text-delta', turn: 1, id: 'msg_1', delta: 'look.' },
    { type: 'call-start', turn: 1, callId: 'r1', name: 'read_file' },
    { type: 'call-delta', turn: 1, callId: 'r1', delta: '{"path":' },
    { type: 'call-delta', turn: 1, callId: 'r1', delta: '"notes.txt"}' },
    { type: 'call', turn: 1, call: read },
    approval(read),
    approval(read, true),
    ev(read, 0, {
      final: false,
      result: { output: 'reading', details: { progress: 1, total: 2, message: 'reading' } },
    }),
    { type: 'call-start', turn: 1, callId: 'r2', name: 'delete_file' },
    { type: 'call-delta', turn: 1, callId: 'r2', delta: remove.arguments },
    { type: 'call', turn: 1, call: remove },
    approval(remove),
    { type: 'call-start', turn: 1, callId: 'r3', name: 'fetch_url' },
    { type: 'call', turn: 1, call: fetchUrl },
    approval(fetchUrl),
    approval(fetchUrl, true),
    ev(read, 0, { final: false, result: { output: 'half way' } }),
    ev(read, 0, { final: true, result: { output: 'buy milk' } }),
    approval(remove, { approved: false, reason: 'not that file' }),
    ev(remove, 1, { final: true, error: new NotApprovedError('r2', 'not that file') }),
    ev(fetchUrl, 2, { final: true, error: new Error('connection refused') }),
    { type: 'call', turn: 1, call: deploy },
    approval(deploy),
    approval(deploy, { approved: true, note: 'staging only' }),
    ev(deploy, 3, { final: false, question }),
    ev(deploy, 3, {
      final: false,
      question,
      answer: { action: 'accept', content: { env: 'staging' } },
    }),
    ev(deploy, 3, { final: true, result: { output: 'deployed' }, note: 'staging only' }),
    { type: 'call', turn: 1, call: broken },
    approval(broken),
    approval(broken, true),
    ev(broken, 4, {
      final: true,
      error: new ValidationError('', 'not valid JSON: Unexpected end of JSON input'),
    }),
    { type: 'turn-end', turn: 1, output: [], calls: 5 },
    { type: 'turn-start', turn: 2, input: [user] },
    { type: 'text-delta', turn: 2, id: 'msg_2', delta: 'Deployed to staging; ' },
    { type: 'text-delta', turn: 2, id: 'msg_2', delta: 'I left /etc/hosts alone.' },
    { type: 'turn-end', turn: 2, output: [], calls: 0 },
    { type: 'loop-end', reason: 'done', turns: 2, items: [user] },
  ];
}
