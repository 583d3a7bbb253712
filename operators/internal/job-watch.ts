/**
 * A job's own signal, watched while the job is unfinished: aborting it ends that call alone.
 * Made only for jobs that carry a signal, so a batch without any pays one property read per job.
 *
 * @module
 */
import { AgentToolError, CancelledError } from '../../lib/errors.js';
import type { Job } from '../job.js';
import type { CallRun } from './call-run.js';

/** What a watch tells when its job's signal aborts. */
export interface WatchOwner {
  /** Job `index`'s signal aborted; the watch has already stopped listening. */
  abortJob(watch: JobWatch): void;
}

/**
 * The error a call aborted by its own signal ends with: the signal's reason when it is one of
 * this package's errors (a CancelledError, a TimeoutError), a CancelledError with the reason's
 * message (and the reason as its cause) for another Error, a plain CancelledError otherwise (no
 * reason, or the DOMException `abort()` gives by default).
 */
export function abortError(reason: unknown): Error {
  if (reason instanceof AgentToolError) return reason;
  const isDomException = typeof DOMException === 'function' && reason instanceof DOMException;
  if (reason instanceof Error && !isDomException)
    return new CancelledError(reason.message, { cause: reason });
  return new CancelledError();
}

/** Listens to one job's signal; the engine links it to the job's run once the job is admitted. */
export class JobWatch implements EventListenerObject {
  /** The job's run, once the job is admitted; undefined before. */
  run: CallRun | undefined = undefined;

  constructor(
    private readonly owner: WatchOwner,
    /** The job's index in the batch. */
    readonly index: number,
    /** The job. */
    readonly job: Job,
    /** The job's signal. */
    readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', this);
  }

  handleEvent(): void {
    this.stop();
    this.owner.abortJob(this);
  }

  /** Stops listening: the job has ended, or the batch has. */
  stop(): void {
    this.signal.removeEventListener('abort', this);
  }
}
