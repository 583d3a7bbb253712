/**
 * A model turn run live through the engine, for the web front: each run is a fresh batch of the
 * turn's function calls, whose records are those `agenttool run --json` writes.
 *
 * @module
 */
import { Observable } from 'rxjs';
import {
  executeBatch,
  jobsFromItems,
  toOutputItems,
  type ExecuteOptions,
  type OutputItem,
  type SettledResult,
  type ToolSet,
} from '../../index.js';
import { isSerialBatch, jobResource } from '../../operators/internal/batch-mode.js';
import { eventRecord, type BatchRecord, type RunRecord } from './run-records.js';
import type { RunControl, RunSource } from './run-source.js';

/** How the batch runs: the options of `agenttool run`, and the page's title. */
export interface LiveTurnOptions extends Pick<
  ExecuteOptions,
  'maxParallel' | 'sequential' | 'timeout'
> {
  title: string;
}

/**
 * The function calls of `items`, run with `tools`. Each run builds its jobs anew (an unknown
 * tool name is a job that fails with NoToolError, as in `agenttool run`) and times its records
 * from its own start. A batch cancel (the control's signal) ends every unfinished call with a
 * CancelledError and still emits the `output` record.
 */
export function liveTurn(
  items: readonly OutputItem[],
  tools: ToolSet,
  options: LiveTurnOptions,
): RunSource {
  const { title, ...execute } = options;
  const jobs = jobsFromItems(items, tools);
  const batch: BatchRecord = {
    type: 'batch',
    jobs: jobs.map((job, index) => ({
      index,
      callId: job.call.id,
      name: job.tool.name,
      args: job.call.args,
      resource: jobResource(job),
    })),
  };
  if (isSerialBatch(jobs, execute)) batch.serial = true;

  const run = ({ signal, cancellation }: RunControl): Observable<RunRecord> =>
    new Observable<RunRecord>((subscriber) => {
      const wrapped = cancellation.wrap(jobs);
      const began = Date.now();
      const settled = new Array<SettledResult>(jobs.length);
      subscriber.next(batch);
      return executeBatch(wrapped, {
        ...execute,
        signal,
        onStart: (_job, index) => subscriber.next({ type: 'start', index, at: Date.now() - began }),
      }).subscribe({
        next: (event) => {
          subscriber.next(eventRecord(event, Date.now() - began));
          if (event.final)
            settled[event.index] =
              event.error !== undefined ? { error: event.error } : { result: event.result };
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          subscriber.next({ type: 'output', items: toOutputItems(wrapped, settled) });
          subscriber.complete();
        },
      });
    });

  return { mode: 'live', title, batch, run };
}
