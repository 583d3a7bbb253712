/**
 * `McpHttpHandler`'s call admission over HTTP (see `maxConcurrentCalls` and `maxQueuedCalls`):
 * a POST's calls wait for their slots, or are answered busy; a batch's calls are admitted one by
 * one; the slots go back when the response closes.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { RequestId } from '@modelcontextprotocol/server';
import type { CallAdmission, Release } from './call-admission.js';
import { sendError } from './http-messages.js';
import { messagesOf, type Admission } from './session-requests.js';

/** What a call refused as busy is told: how many run and wait; retry later. */
export function busyMessage(admission: CallAdmission): string {
  const { max, queue } = admission;
  return `Server busy: ${max} calls running${queue > 0 ? ` and ${queue} waiting` : ''}; retry later`;
}

/**
 * Holds a POST with `calls` tool calls until they may run; the slots are given back (through
 * `giveBack`, which may keep them longer) when its response closes. False when it was answered
 * busy (503, `Retry-After: 1`), or its client left while it waited.
 */
export async function admitPost(
  admission: CallAdmission,
  res: ServerResponse,
  calls: number,
  ids: readonly RequestId[],
  giveBack: (release: Release) => void = (release) => release(),
): Promise<boolean> {
  if (calls === 0) return true;
  const granted = admission.acquire(calls, (leave) => res.once('close', leave));
  if (granted === undefined) {
    sendError(res, 503, -32000, busyMessage(admission), { 'retry-after': '1' }, ids[0] ?? null);
    return false;
  }
  const release: Release = granted instanceof Promise ? await granted : granted;
  if (res.destroyed || res.writableEnded) {
    release();
    return false;
  }
  res.once('close', () => giveBack(release));
  return true;
}

/**
 * The admission of each tools/call of a batch, in order, as a single call gets it: a slot, a
 * place in the queue, or (both full) the busy message, which it gets as a JSON-RPC error in
 * the batch's response, since one HTTP status cannot speak for every message. A waiting call
 * whose POST closes leaves the queue.
 */
export function admitEach(
  admission: CallAdmission,
  res: ServerResponse,
  body: unknown,
): Map<RequestId, Admission> {
  const admissions = new Map<RequestId, Admission>();
  // One listener for the batch, however many calls wait.
  const leaves: (() => void)[] = [];
  res.once('close', () => {
    for (const leave of leaves) leave();
  });
  for (const m of messagesOf(body)) {
    if (typeof m !== 'object' || m === null) continue;
    const { method, id } = m as { method?: unknown; id?: unknown };
    if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) continue;
    const granted = admission.acquire(1, (leave) => leaves.push(leave));
    admissions.set(id, granted ?? busyMessage(admission));
  }
  return admissions;
}
