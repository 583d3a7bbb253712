/**
 * Where each call goes on the web front's timeline: one swimlane per resource, where the calls of
 * a resource chain sit one after another (so an overlap would show), and "slot" lanes for calls
 * without a resource, one per call running at once.
 *
 * Runs in the browser and in tests: pure, no DOM.
 *
 * @module
 */

/** The fields of a call the layout reads (a `CallRow` has them). */
export interface TimedCall {
  index: number;
  /** "" when the call names no resource. */
  resource: string;
  /** ms since the batch started; -1 until then. */
  startedAt: number;
  endedAt: number;
}

/** One swimlane. */
export interface Lane {
  /** Stable across renders: the resource name, or `slot-1`, `slot-2`, ... */
  key: string;
  label: string;
}

/** The lanes, and the lane key of each call by index ("" for a call that has not started). */
export interface TimelineLayout {
  lanes: Lane[];
  laneOf: string[];
}

/**
 * Lays out the calls: every resource of the batch gets its lane (in order of its first call)
 * whether or not its calls have started; a started call without a resource takes the first slot
 * lane whose last call had ended when it started (a call still running holds its lane), else a
 * new one. Calls are placed in order of start, then index, so a call keeps its lane as the batch
 * goes on and the same run always gets the same picture.
 */
export function layoutTimeline(calls: readonly TimedCall[]): TimelineLayout {
  const resourceLanes: Lane[] = [];
  const seen = new Set<string>();
  const laneOf = new Array<string>(calls.length).fill('');
  const free: TimedCall[] = [];
  for (const call of calls) {
    if (call.resource !== '') {
      if (!seen.has(call.resource)) {
        seen.add(call.resource);
        resourceLanes.push({ key: call.resource, label: call.resource });
      }
      if (call.startedAt >= 0) laneOf[call.index] = call.resource;
    } else if (call.startedAt >= 0) free.push(call);
  }
  free.sort((a, b) => a.startedAt - b.startedAt || a.index - b.index);
  const slotEnds: number[] = [];
  for (const call of free) {
    let slot = slotEnds.findIndex((end) => end <= call.startedAt);
    if (slot < 0) slot = slotEnds.push(0) - 1;
    slotEnds[slot] = call.endedAt >= 0 ? call.endedAt : Infinity;
    laneOf[call.index] = `slot-${slot + 1}`;
  }
  const slotLanes = slotEnds.map((_, i) => ({ key: `slot-${i + 1}`, label: `slot ${i + 1}` }));
  return { lanes: [...resourceLanes, ...slotLanes], laneOf };
}
