/**
 * The measuring loop every scenario shares: variants run interleaved, round after round, in a
 * rotating order, and each is summarised by its median.
 *
 * Why not tinybench or mitata: both run one task's iterations to the end before the next task
 * starts, so on a shared machine a burst of load lands on one side of a comparison and poses as
 * its cost. Here every round runs every variant once, the first one to run rotates, and the ratio
 * is taken between medians, so a burst moves a few samples of each side rather than all of one.
 *
 * @module
 */

/**
 * Which time a sample is: the CPU time of this process (user and system, every thread, so garbage
 * collection on helper threads counts), or the wall clock. CPU time is the default for work that
 * never waits: on a shared machine the wall clock also counts the moments another process held
 * the core. Work that waits on I/O or timers must be timed on the wall clock.
 */
export type Clock = 'cpu' | 'wall';

/** One side of a comparison: runs `calls` units of work each time it is invoked. */
export interface Variant {
  readonly name: string;
  /** How many calls (or events) one invocation of `run` performs; the divisor of its time. */
  readonly calls: number;
  /** Default `cpu`. */
  readonly clock?: Clock;
  run(): void | Promise<void>;
}

/** The samples of one variant, in nanoseconds per call, and their medians on both clocks. */
export interface Sampled {
  readonly name: string;
  /** On the variant's own clock. */
  readonly samples: number[];
  readonly median: number;
  readonly cpuMedian: number;
  readonly wallMedian: number;
}

/** How many rounds to run; the warm-up rounds are run and thrown away. */
export interface RoundOptions {
  rounds: number;
  warmup?: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Whether the process runs with `--expose-gc` (the bench script sets it). */
export const hasGc = gc !== undefined;

/** The heap in use after a full collection, in bytes. */
export function settledHeap(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The value below which `q` (0..1) of `values` lie. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/** One sample on both clocks, in nanoseconds per call. */
export interface Timing {
  readonly cpu: number;
  readonly wall: number;
}

/**
 * Times one invocation of `variant` on both clocks. No collection is forced first: after a forced
 * full collection V8 runs the next ten thousand or so calls at two to three times their steady
 * cost, which would bill whichever side allocates more for the harness's own gc().
 */
export async function timeOnce(variant: Variant): Promise<Timing> {
  const startCpu = cpuMicros();
  const start = process.hrtime.bigint();
  const pending = variant.run();
  if (pending !== undefined) await pending;
  const wall = Number(process.hrtime.bigint() - start);
  const cpu = (cpuMicros() - startCpu) * 1000;
  return { cpu: cpu / variant.calls, wall: wall / variant.calls };
}

/**
 * Runs every variant once per round, rotating which goes first, and returns each one's samples
 * and median in the order given.
 */
export async function interleave(
  variants: readonly Variant[],
  options: RoundOptions,
): Promise<Sampled[]> {
  const timings = variants.map(() => [] as Timing[]);
  const warmup = options.warmup ?? 1;
  for (let round = 0; round < warmup + options.rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const i = (round + k) % variants.length;
      const timing = await timeOnce(variants[i]);
      if (round >= warmup) timings[i].push(timing);
    }
  }
  return variants.map((variant, i) => {
    const cpu = timings[i].map((t) => t.cpu);
    const wall = timings[i].map((t) => t.wall);
    const samples = variant.clock === 'wall' ? wall : cpu;
    return {
      name: variant.name,
      samples,
      median: median(samples),
      cpuMedian: median(cpu),
      wallMedian: median(wall),
    };
  });
}
