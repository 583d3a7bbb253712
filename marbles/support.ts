/**
 * Shared set-up of the marble tests: a TestScheduler asserting with chai, and job builders.
 */
import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import type { Tool } from '../lib/contract.js';
import type { Job } from '../operators/job.js';
import type { ExecutionEvent } from '../operators/job.js';
import { final, finalEvent, progress } from '../testing/index.js';

/** A TestScheduler whose assertions are chai's deep equality (errors compare by name, message, code). */
export function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
}

/** A job of `tool` whose call id is `id` and whose arguments are empty. */
export function job(tool: Tool, id: string): Job {
  return { tool, call: { id, args: '' } };
}

/** Tool events for cold stubs: `p` progress "half", `f` final "done". */
export const toolEvents = { p: progress('half'), f: final('done') };

/**
 * The final events of jobs that all end with "done", keyed by their call ids, the job index being
 * the id's position in `ids`: `doneEvents('abc')` is `{ a: finalEvent(0, 'a', 'done'), b: ... }`.
 */
export function doneEvents(ids: string): Record<string, ExecutionEvent> {
  return Object.fromEntries([...ids].map((id, index) => [id, finalEvent(index, id, 'done')]));
}
