/**
 * What the web front shows: a turn run live, or a saved run replayed. Either way a run is a cold
 * observable of records, so the server streams both the same way.
 *
 * @module
 */
import type { Observable } from 'rxjs';
import type { CallControls } from './call-controls.js';
import type { BatchRecord, RunRecord } from './run-records.js';

/** How the server steers one run. */
export interface RunControl {
  /** Aborting it cancels the batch: every unfinished call ends with a CancelledError. */
  signal: AbortSignal;
  /** Single calls: cancel one, approve or refuse one, answer one's question. */
  calls: CallControls;
}

/** A turn the web front can run, again and again. */
export interface RunSource {
  /** `live` runs the tools; a `replay` plays back a saved run and cannot be cancelled. */
  readonly mode: 'live' | 'replay';
  /** What the page calls it: the file it came from. */
  readonly title: string;
  /** The jobs, as the page shows them before the first run. */
  readonly batch: BatchRecord;
  /**
   * Runs it once per subscription: the `batch` record first, then `start` and `event` records as
   * they happen, then the `output` record, then completion. Unsubscribing stops it.
   */
  run(control: RunControl): Observable<RunRecord>;
}
