/**
 * One job a fleet worker runs (see fleet-worker.ts): its data checked (and its signature, when the
 * worker has a secret), its tool looked up, its call run through `executeBatch` with progress,
 * records and questions sent back, and its end given as the job's result or failure.
 *
 * @module
 */
import { UnrecoverableError, WaitingError, type Job } from 'bullmq';
import type { ElicitResult, Tool, ToolResult } from '../../lib/contract.js';
import type { ExecutionEvent } from '../../operators/job.js';
import { AgentToolError, NotReplayedError } from '../../lib/errors.js';
import { replayOf } from '../../lib/replay.js';
import { executeBatch } from '../../operators/execute-batch.js';
import { jsonSafe } from './fleet-connection.js';
import { StoppableRun } from './fleet-stop.js';
import { failureText, readCallData, type CallData, type Finished } from './fleet-message.js';
import type { WorkerRunner } from './fleet-worker.js';

/** A job that is not run: its failure as the worker writes it (signed when it has a secret). */
export class Unrun extends UnrecoverableError {}

/** A job taken by a worker, from its check to its end. */
export class WorkerCall {
  readonly jobId: string;
  /** Its call's run: stopped when its dispatcher cancels it, its lock is lost, the worker closes. */
  readonly #run = new StoppableRun();
  #questions = 0;
  /** The questions open, by key: each waits for its dispatcher's answer. */
  readonly asking = new Map<string, (answer: ElicitResult) => void>();

  constructor(
    private readonly runner: WorkerRunner,
    private readonly job: Job<CallData, Finished, string>,
    private readonly token: string | undefined,
  ) {
    this.jobId = job.id!;
  }

  /** The job's failure for `error`, thrown to BullMQ: the job is not tried again. */
  #unrun(error: Error): UnrecoverableError {
    const code = (error as { code?: unknown }).code;
    const failure = { message: error.message, ...(typeof code === 'string' ? { code } : {}) };
    const signed = this.runner.signer?.signFailure(this.jobId, failure) ?? failure;
    return new Unrun(failureText(signed));
  }

  /** The call the job carries, checked: its shape, its signature, its tool, whether it may run. */
  #check(): { data: CallData; tool: Tool } {
    const data = readCallData(this.job.data, this.jobId);
    const { signer } = this.runner;
    if (signer !== undefined && !signer.verifyCall(this.jobId, data))
      throw Object.assign(
        new Error(`fleet: job ${this.jobId} is not signed with the fleet's secret: not run`),
        { code: 'unsigned_job' },
      );
    const tool = this.runner.tools.get(data.tool);
    if (tool === undefined)
      throw new AgentToolError('no_tool', `no tool "${data.tool}" on this worker`);
    // Taken again after a worker died mid-call: only a call safe to run twice runs again.
    if (
      (this.job.attemptsStarted > 1 || this.job.stalledCounter > 0) &&
      replayOf(tool) === 'unsafe'
    )
      throw new NotReplayedError(
        data.call.id,
        tool.name,
        `tool "${tool.name}" is not safe to run twice`,
      );
    return { data, tool };
  }

  /** Runs the job: its result, or a throw BullMQ takes as its failure (or its hand-back). */
  async run(): Promise<Finished> {
    let checked: { data: CallData; tool: Tool };
    try {
      checked = this.#check();
    } catch (err) {
      throw this.#unrun(err as Error);
    }
    // Taken while this worker closes with `force` (a fetch already under way): handed back unrun.
    if (this.runner.handingBack) return this.#handBack();
    const final = await this.#execute(checked.tool, checked.data);
    // Stopped by this worker's `close(true)`: handed back to the queue for another worker (a call
    // not safe to run twice then fails there, unrun, with not_replayed).
    if (this.runner.handingBack && final.error !== undefined) return this.#handBack();
    if (final.error !== undefined) throw this.#unrun(final.error);
    const result = final.result!;
    const finished: Finished = {
      output: (jsonSafe(result.output) ?? '') as ToolResult['output'],
      ...(result.details === undefined ? {} : { details: jsonSafe(result.details) }),
      ...(result.terminate === true ? { terminate: true } : {}),
    };
    return this.runner.signer?.signFinished(this.jobId, finished) ?? finished;
  }

  async #handBack(): Promise<never> {
    await this.job.moveToWait(this.token);
    throw new WaitingError();
  }

  /** Stops the call (see {@link StoppableRun}): it ends cancelled, its tool's signal aborted. */
  stop(): void {
    this.#run.stop();
  }

  #execute(tool: Tool, data: CallData): Promise<ExecutionEvent> {
    const { job } = this;
    const batch = executeBatch([{ tool, call: { ...data.call } }], {
      // What the call records goes to its dispatcher's recorder, in order.
      recorder: (record) =>
        job.updateProgress({ record: { ns: record.ns, data: record.data } } as object),
      // Its questions go to its dispatcher's elicitor, and the answers come back.
      elicitor: (request) => this.#ask(request),
    });
    return this.#run.run(data.call.id, batch, (event) => this.#progress(event));
  }

  #ask(request: unknown): Promise<ElicitResult> {
    return new Promise<ElicitResult>((resolve) => {
      const key = `q${++this.#questions}`;
      this.asking.set(key, resolve);
      void this.job
        .updateProgress({ question: { key, request: jsonSafe(request) } } as object)
        .then(() => this.runner.readAnswers(this.jobId))
        .catch(() => resolve({ action: 'cancel' }));
    });
  }

  /** Progress only: the batch's own events about the call (a question asked) are not the tool's. */
  #progress(event: ExecutionEvent): void {
    if (event.result === undefined) return;
    void this.job
      .updateProgress({
        output: jsonSafe(event.result.output) ?? '',
        details: jsonSafe(event.result.details),
      } as object)
      .catch(() => undefined);
  }
}
