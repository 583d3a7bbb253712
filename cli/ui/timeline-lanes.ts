/**
 * Where each call goes on the web front's timeline: one swimlane per resource, where the calls of
 * a resource chain sit one after another, with a lane more for each call of a counted resource
 * running beside another (`sandbox`, `sandbox #2`, ...), and "slot" lanes for calls without a
 * resource, one per call running at once.
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
 * whether or not its calls have started, and one more after it for each of its calls that runs
 * while its other lanes are taken (a counted resource; `sandbox#2`, labelled `sandbox #2`); a
 * started call without a resource takes the first slot lane whose last call had ended when it
 * started (a call still running holds its lane), else a new one. Calls are placed in order of
 * start, then index, so a call keeps its lane as the batch goes on and the same run always gets
 * the same picture.
 */
export function layoutTimeline(calls: readonly TimedCall[]): TimelineLayout {
  const started = new Map<string, TimedCall[]>(); // by resource, in order of first call
  const laneOf = new Array<string>(calls.length).fill('');
  const free: TimedCall[] = [];
  for (const call of calls) {
    if (call.resource !== '') {
      let ofResource = started.get(call.resource);
      if (ofResource === undefined) started.set(call.resource, (ofResource = []));
      if (call.startedAt >= 0) ofResource.push(call);
    } else if (call.startedAt >= 0) free.push(call);
  }
  const lanes: Lane[] = [];
  for (const [resource, ofResource] of started) {
    const count = pack(ofResource, laneOf, (i) => (i === 0 ? resource : `${resource}#${i + 1}`));
    lanes.push({ key: resource, label: resource });
    for (let i = 1; i < count; i++)
      lanes.push({ key: `${resource}#${i + 1}`, label: `${resource} #${i + 1}` });
  }
  const slots = pack(free, laneOf, (i) => `slot-${i + 1}`);
  for (let i = 0; i < slots; i++) lanes.push({ key: `slot-${i + 1}`, label: `slot ${i + 1}` });
  return { lanes, laneOf };
}

/**
 * Puts each started call in the first lane whose last call had ended when it started, else a new
 * one, in order of start then index; sets `laneOf` by `keyOf(lane)` and returns the lanes used.
 */
function pack(calls: TimedCall[], laneOf: string[], keyOf: (lane: number) => string): number {
  calls.sort((a, b) => a.startedAt - b.startedAt || a.index - b.index);
  const ends: number[] = [];
  for (const call of calls) {
    let lane = ends.findIndex((end) => end <= call.startedAt);
    if (lane < 0) lane = ends.push(0) - 1;
    ends[lane] = call.endedAt >= 0 ? call.endedAt : Infinity;
    laneOf[call.index] = keyOf(lane);
  }
  return ends.length;
}
