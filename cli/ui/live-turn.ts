/**
 * A model turn run live through the engine, for the web front: each run is a fresh batch of the
 * turn's function calls, whose records are those `agenttool run --json` writes.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { defer, Observable, tap } from 'rxjs';
import {
  chains,
  executeBatch,
  jobsFromItems,
  settledOf,
  toOutputItems,
  checkEditedArgs,
  type Approval,
  type ExecuteOptions,
  type Job,
  type OutputItem,
  type SettledResult,
  type ToolSet,
} from '../../index.js';
import { initialCallStates } from '../../operators/index.js';
import {
  eventRecord,
  type ApprovalRecord,
  type BatchRecord,
  type RunRecord,
} from './run-records.js';
import type { RunControl, RunSource } from './run-source.js';

/** Why `args`, corrected by the person approving `job`, would not run (the engine's check). */
function editProblem(args: unknown, job: Job): string | undefined {
  const checked = checkEditedArgs(args, job);
  return 'why' in checked ? checked.why : undefined;
}

/** What a person's decision added to the call, as its approval record carries it. */
function reviewOf(given: Approval): Pick<ApprovalRecord, 'note' | 'args'> {
  if (typeof given === 'boolean') return {};
  const { note } = given;
  const args = given.approved ? given.args : undefined;
  return {
    ...(note !== undefined && note !== '' && { note }),
    ...(args !== undefined && { args: typeof args === 'string' ? args : JSON.stringify(args) }),
  };
}

/** How the batch runs: the options of `agenttool run`, and the page's title. */
export interface LiveTurnOptions extends Pick<
  ExecuteOptions,
  'maxParallel' | 'sequential' | 'timeout'
> {
  title: string;
  /**
   * Asks the person for every call that is not read-only (its tool's `annotations.readOnlyHint`
   * is not true) before it takes a slot: the page shows approve/refuse buttons in its row.
   * Default false: every call runs without asking.
   */
  approve?: boolean;
  /**
   * Each run's calls carry an idempotency key of that run (`<run id>/<call id>`): calls whose
   * keys name their jobs (the worker fleet, `--redis`) then run again when the page runs the turn
   * again, rather than reading back the earlier run's results. Default false.
   */
  keyEachRun?: boolean;
}

/** The `batch` record of `jobs`: each call as the page lists it, and whether they run serially. */
function batchRecordOf(jobs: readonly Job[], execute: ExecuteOptions): BatchRecord {
  const states = initialCallStates(jobs);
  const batch: BatchRecord = {
    type: 'batch',
    jobs: jobs.map((job, index) => ({
      index,
      callId: job.call.id,
      name: job.tool.name,
      args: job.call.args,
      resource: states[index]!.resource,
    })),
  };
  // One chain holding every job in order: the batch runs one call at a time.
  const [only, ...others] = chains(jobs, execute);
  if (only !== undefined && others.length === 0 && only.length === jobs.length) batch.serial = true;
  return batch;
}

/**
 * The function calls of `items`, run with `tools`. Each run builds its jobs anew (an unknown
 * tool name is a job that fails with NoToolError, as in `agenttool run`) and times its records
 * from its own start. A batch cancel (the control's signal) ends every unfinished call with a
 * CancelledError and still emits the `output` record. Each job carries the signal of its
 * {@link CallControls} entry (cancel one call), and a tool's questions go to the controls'
 * elicitor (answered from the page).
 */
export function liveTurn(
  items: readonly OutputItem[],
  tools: ToolSet,
  options: LiveTurnOptions,
): RunSource {
  const { title, approve, keyEachRun, ...execute } = options;
  const jobs = jobsFromItems(items, tools);
  const batch = batchRecordOf(jobs, execute);

  const run = ({ signal, calls }: RunControl): Observable<RunRecord> =>
    new Observable<RunRecord>((subscriber) => {
      const began = Date.now();
      const settled = new Array<SettledResult>(jobs.length);
      const approval = (index: number, state: ApprovalRecord['state'], given?: Approval): void =>
        subscriber.next({
          type: 'approval',
          index,
          state,
          at: Date.now() - began,
          ...(given !== undefined && reviewOf(given)),
        });
      subscriber.next(batch);
      const runId = randomUUID();
      const keyed =
        keyEachRun === true
          ? calls.withSignals(jobs).map((job) => ({
              ...job,
              call: { ...job.call, idempotencyKey: `${runId}/${job.call.id}` },
            }))
          : calls.withSignals(jobs);
      return executeBatch(keyed, {
        ...execute,
        signal,
        elicitor: calls.elicitor,
        ...(approve === true && {
          approve: (job: Job, index: number) =>
            job.tool.annotations?.readOnlyHint === true ||
            defer(() => {
              approval(index, 'asked');
              return calls
                .approval(index, (args) => editProblem(args, job))
                .pipe(
                  tap((given) => {
                    const approved = typeof given === 'boolean' ? given : given.approved;
                    approval(index, approved ? 'approved' : 'refused', given);
                  }),
                );
            }),
        }),
        onStart: (_job, index) => subscriber.next({ type: 'start', index, at: Date.now() - began }),
        // With --otlp, each call's span: the page links the call to its trace.
        telemetry: {
          onSpan: (_job, index, { traceId, spanId }) =>
            subscriber.next({ type: 'trace', index, traceId, spanId, at: Date.now() - began }),
        },
      }).subscribe({
        next: (event) => {
          subscriber.next(eventRecord(event, Date.now() - began));
          if (event.final) settled[event.index] = settledOf(event);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          subscriber.next({ type: 'output', items: toOutputItems(jobs, settled) });
          subscriber.complete();
        },
      });
    });

  return { mode: 'live', title, batch, run };
}
