/**
 * The web front's runs: at most one going at a time, its records kept for every page that
 * connects (a page that connects late, or reconnects, sees the run from its `batch` record), and
 * what a person does to single calls: cancel, approve or refuse, answer a question.
 *
 * @module
 */
import {
  BehaviorSubject,
  ReplaySubject,
  of,
  switchAll,
  type Observable,
  type Subscription,
} from 'rxjs';
import type { Approval, ElicitResult } from '../../index.js';
import { CallControls, type Decision } from './call-controls.js';
import type { RunRecord } from './run-records.js';
import type { RunSource } from './run-source.js';
import { visible } from '../views/visible.js';

/** What became of a request to cancel one call. */
export type CallCancelOutcome = 'cancelling' | 'not-running' | 'ended' | 'no-such-call';

/**
 * What became of a person's approval or answer for one call: taken; the call is not waiting for
 * one (`not-asked`); a person decided it already (`already`); no run is going; no such call; or,
 * for an answer, why it does not fit.
 */
export type CallDecisionOutcome = Decision | 'not-running' | 'no-such-call';

interface ActiveRun {
  readonly controller: AbortController;
  readonly calls: CallControls;
  readonly ended: Set<number>;
  subscription: Subscription | undefined;
  done: boolean;
}

/**
 * Starts, streams and cancels the runs of one {@link RunSource}. A run's records are kept until
 * the next run starts; closing cancels a running batch and completes {@link records}.
 */
export class RunController {
  private readonly runs: BehaviorSubject<Observable<RunRecord>>;
  private active: ActiveRun | undefined = undefined;
  private started = 0;

  /**
   * Every record of the current run, from its `batch` record on, then those of each later run as
   * it starts. Before the first run, the source's `batch` record alone (every call waiting).
   */
  readonly records: Observable<RunRecord>;

  constructor(private readonly source: RunSource) {
    this.runs = new BehaviorSubject<Observable<RunRecord>>(of(source.batch));
    this.records = this.runs.pipe(switchAll());
  }

  /** Whether a run is going (started, and its `output` record not yet sent). */
  get running(): boolean {
    return this.active !== undefined && !this.active.done;
  }

  /** How many runs have started. */
  get runCount(): number {
    return this.started;
  }

  /** Starts a run; false, and nothing happens, while one is going. */
  start(): boolean {
    if (this.running) return false;
    const records = new ReplaySubject<RunRecord>();
    const run: ActiveRun = {
      controller: new AbortController(),
      calls: new CallControls(this.source.batch.jobs.map((job) => job.callId)),
      ended: new Set(),
      subscription: undefined,
      done: false,
    };
    this.active = run;
    this.started++;
    this.runs.next(records);
    const finish = (): void => {
      run.done = true;
      records.complete();
    };
    run.subscription = this.source
      .run({ signal: run.controller.signal, calls: run.calls })
      .subscribe({
        next: (record) => {
          if (record.type === 'event' && record.final) run.ended.add(record.index);
          records.next(record);
        },
        error: (err: unknown) => {
          process.stderr.write(
            `agenttool ui: the run failed: ${visible(String((err as Error).message))}\n`,
          );
          records.next({ type: 'output', items: [] });
          finish();
        },
        complete: finish,
      });
    return true;
  }

  /**
   * Cancels the running batch: the tools stop and every unfinished call ends cancelled. False
   * when no run is going or the source is a replay.
   */
  cancel(): boolean {
    if (!this.running || this.source.mode !== 'live') return false;
    this.active!.controller.abort();
    return true;
  }

  /** Cancels call `index` of the running batch (see {@link CallControls.cancel}). */
  cancelCall(index: number): CallCancelOutcome {
    if (!this.isCall(index)) return 'no-such-call';
    if (!this.running || this.source.mode !== 'live') return 'not-running';
    const run = this.active!;
    if (run.ended.has(index)) return 'ended';
    run.calls.cancel(index);
    return 'cancelling';
  }

  /** Approves or refuses call `index` of the running batch (see {@link CallControls.decide}). */
  decideCall(index: number, approval: Approval): CallDecisionOutcome {
    if (!this.isCall(index)) return 'no-such-call';
    return this.afterRun((calls) => calls.decide(index, approval));
  }

  /**
   * What a decision or an answer (`act`) came to: as the run's calls say while it runs; once it has
   * ended, that a person decided the call already (a second tab whose answer came after the
   * first one finished the batch), else that no run is going.
   */
  private afterRun(act: (calls: CallControls) => CallDecisionOutcome): CallDecisionOutcome {
    // Whether the run was going when the request came: a refusal of its last waiting call ends
    // it at once, and that refusal was taken all the same.
    const wasRunning = this.running;
    const outcome = this.active === undefined ? undefined : act(this.active.calls);
    if (outcome === undefined || this.source.mode !== 'live') return 'not-running';
    if (wasRunning) return outcome;
    return typeof outcome === 'object' && 'already' in outcome ? outcome : 'not-running';
  }

  /**
   * Answers the open question of call `index`, or its `question`-th one (see
   * {@link CallControls.answer}).
   */
  answerCall(index: number, result: ElicitResult, question?: number): CallDecisionOutcome {
    if (!this.isCall(index)) return 'no-such-call';
    // A run that has ended has no open question: its calls say only whether one was answered.
    return this.afterRun((calls) => calls.answer(index, result, question));
  }

  private isCall(index: number): boolean {
    return Number.isInteger(index) && index >= 0 && index < this.source.batch.jobs.length;
  }

  /** Cancels a running batch and lets go of it; the records end. */
  close(): void {
    const run = this.active;
    if (run !== undefined) {
      if (!run.done) run.controller.abort();
      run.subscription?.unsubscribe();
    }
    this.runs.complete();
  }
}
