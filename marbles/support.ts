/**
 * Shared set-up of the marble tests: a TestScheduler asserting with chai, and job builders.
 */
import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import type { Tool } from '../lib/contract.js';
import type { Job } from '../operators/job.js';
import { final, progress } from '../testing/index.js';

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
