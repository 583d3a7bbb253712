/**
 * One call sent to a fleet (see fleet-dispatcher.ts): it places the call's job, hands the job's
 * progress, questions and records to the call's context, and ends the call with the job's end.
 * Everything it reads from Redis is checked (fleet-message.ts): a malformed or unsigned entry
 * fails this call alone, saying which job it came from.
 *
 * @module
 */
import type { Job } from 'bullmq';
import type { Subscriber } from 'rxjs';
import type {
  ElicitRequest,
  ElicitResult,
  Tool,
  ToolCall,
  ToolContext,
  ToolEvent,
  ToolResult,
} from '../../lib/contract.js';
import { describeThrown, NotReplayedError } from '../../lib/errors.js';
import { idempotencyKeyOf, replayOf } from '../../lib/replay.js';
import { receivedRecord } from '../mcp-shared/mcp-records.js';
import { answersChannel, answersKey, cancelChannel } from './fleet-connection.js';
import type { FleetEvent } from './fleet-events.js';
import {
  errorOf,
  FleetMessageError,
  readFailure,
  readFinished,
  readProgress,
  type CallData,
  type CallPayload,
  type Failure,
  type Finished,
} from './fleet-message.js';
import type { Dispatcher } from './fleet-dispatcher.js';

/** A call running on the fleet, from its job's placing to its end. */
export class FleetCall {
  readonly jobId: string;
  #ended = false;
  /** The call's job is in Redis (added, or found there already). */
  #placed = false;
  /**
   * Records the worker's call made, written through the context in order: the call's end is given
   * after them (they come ahead of it on the event stream).
   */
  #recorded: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly tool: Tool,
    private readonly call: ToolCall,
    private readonly context: ToolContext,
    private readonly subscriber: Subscriber<ToolEvent>,
  ) {
    this.jobId = dispatcher.jobIdOf(call);
  }

  /** Places the call's job, listening first: a job that ends at once is not missed. */
  start(): void {
    this.dispatcher.watch(this);
    void this.#place();
  }

  /** An entry of the queue's event stream about this call's job. */
  onEvent(event: FleetEvent): void {
    if (this.#ended) return;
    if (event.event === 'progress') this.#progress(event.data);
    else if (event.event === 'completed') this.completed(event.returnvalue);
    else if (event.event === 'failed') this.failed(event.failedReason);
    // The call's job was in the queue already (the call sent again): it may have ended before
    // this call listened, and then no end of it comes on the stream.
    else if (event.event === 'duplicated') this.#found();
  }

  /** Looks at the call's job, found in the queue when it was added, for an end it had already. */
  #found(): void {
    this.dispatcher.queue
      .getJob(this.jobId)
      .then((job) => (job === undefined || this.#ended ? undefined : this.#settle(job)))
      .catch((err: unknown) =>
        this.fail(new Error(`fleet: queue "${this.dispatcher.name}": ${describeThrown(err)}`)),
      );
  }

  /** The job's result, once the records before it are written. */
  completed(value: unknown): void {
    void this.#recorded.then(() => this.#finish(value));
  }

  /** The job's failed reason, once the records before it are written. */
  failed(reason: unknown): void {
    void this.#recorded.then(() => this.#failWith(reason));
  }

  /** Fails the call with `error` (the dispatcher closing, a malformed message). */
  fail(error: Error): void {
    if (this.#end()) this.subscriber.error(error);
  }

  /** Unsubscribed: a job still waiting is removed, one running is cancelled on its worker. */
  cancel(): void {
    if (!this.#end()) return;
    const { queue, publisher, name } = this.dispatcher;
    // A removal of a locked (running) job fails: then it is cancelled on its worker.
    void queue
      .remove(this.jobId)
      .catch(() => 0)
      .then((removed) =>
        removed === 1 ? undefined : publisher.publish(cancelChannel(name), this.jobId),
      )
      .catch(() => undefined);
  }

  /** Looks at the call's job again, once Redis is back after an outage. */
  recheck(): void {
    if (!this.#placed || this.#ended) return;
    this.dispatcher.queue
      .getJob(this.jobId)
      .then(async (job) => {
        if (this.#ended) return;
        if (job !== undefined) return this.#settle(job);
        // Gone: Redis came back without its data. The call is sent again when its tool is safe
        // to run twice, and fails unrun otherwise, as when its worker dies.
        if (replayOf(this.tool) !== 'unsafe') return this.#place();
        this.fail(
          new NotReplayedError(
            this.call.id,
            this.tool.name,
            `its job was lost with Redis's data, and tool "${this.tool.name}" is not safe to run twice`,
          ),
        );
      })
      // Redis away again: looked at once it is back.
      .catch(() => undefined);
  }

  /** Ends the call here; false when it had ended already. */
  #end(): boolean {
    if (this.#ended) return false;
    this.#ended = true;
    this.dispatcher.unwatch(this);
    return true;
  }

  #payload(): CallPayload {
    const { call } = this;
    return {
      tool: this.tool.name,
      call: {
        id: call.id,
        args: call.args,
        idempotencyKey: idempotencyKeyOf(call),
        ...(call.trace === undefined ? {} : { trace: call.trace }),
      },
      batch: this.dispatcher.batchOf(call),
    };
  }

  /** Adds the call's job; one that exists already (the call sent again) is the same job. */
  async #place(): Promise<void> {
    const { dispatcher, jobId } = this;
    try {
      await dispatcher.ready;
      const payload = this.#payload();
      const data: CallData = dispatcher.signer?.signCall(jobId, payload) ?? payload;
      // No read of the job after: a job added anew ends on the event stream, and one that was
      // there already says so on it (`duplicated`, see onEvent).
      await dispatcher.queue.add(this.tool.name, data, {
        jobId,
        attempts: 1,
        removeOnComplete: { age: 3600 },
        removeOnFail: { age: 3600 },
      });
      this.#placed = true;
    } catch (err) {
      this.fail(new Error(`fleet: queue "${dispatcher.name}": ${describeThrown(err)}`));
    }
  }

  /** Gives the end of the call's job when it has one. */
  async #settle(job: Job<CallData, Finished, string>): Promise<void> {
    const state = await job.getState();
    if (this.#ended || (state !== 'completed' && state !== 'failed')) return;
    // Read back: a job `add` found already carries the data it was given, not its end.
    const done = await this.dispatcher.queue.getJob(this.jobId);
    await this.#recorded;
    if (state === 'completed') this.#finish(done?.returnvalue ?? null);
    else if (!(await this.#resumeCancelled(done?.failedReason))) this.#failWith(done?.failedReason);
  }

  /**
   * A job found failed because an earlier dispatcher of its batch cancelled it (a run stopped and
   * resumed): a call safe to run twice is sent again, any other fails unrun (not_replayed), since
   * it may have done part of its work. False when the job failed otherwise.
   */
  async #resumeCancelled(reason: unknown): Promise<boolean> {
    let failure: Failure;
    try {
      failure = readFailure(reason, this.jobId);
    } catch {
      return false;
    }
    const { signer } = this.dispatcher;
    if (
      failure.code !== 'cancelled' ||
      (signer !== undefined && !signer.verifyFailure(this.jobId, failure))
    )
      return false;
    if (replayOf(this.tool) !== 'unsafe') {
      await this.dispatcher.queue.remove(this.jobId);
      await this.#place();
      return true;
    }
    this.fail(
      new NotReplayedError(
        this.call.id,
        this.tool.name,
        `an earlier run of its batch cancelled it after it started, and tool "${this.tool.name}" is not safe to run twice`,
      ),
    );
    return true;
  }

  #finish(value: unknown): void {
    if (this.#ended) return;
    let finished: Finished;
    try {
      finished = readFinished(value, this.jobId);
    } catch (err) {
      return this.fail(err as Error);
    }
    const { signer } = this.dispatcher;
    if (signer !== undefined && !signer.verifyFinished(this.jobId, finished))
      return this.fail(
        new FleetMessageError(this.jobId, "its result is not signed with the fleet's secret"),
      );
    const result: ToolResult = { output: finished.output };
    if (finished.details !== undefined) result.details = finished.details;
    if (finished.terminate === true) result.terminate = true;
    if (!this.#end()) return;
    this.subscriber.next({ final: true, result });
    this.subscriber.complete();
  }

  #failWith(reason: unknown): void {
    if (this.#ended) return;
    try {
      const failure = readFailure(reason, this.jobId);
      const { signer } = this.dispatcher;
      if (signer !== undefined && !signer.verifyFailure(this.jobId, failure))
        return this.fail(
          new FleetMessageError(
            this.jobId,
            `failed with a reason not signed with the fleet's secret: ${failure.message}`,
          ),
        );
      this.fail(errorOf(failure));
    } catch (err) {
      this.fail(err as Error);
    }
  }

  #progress(text: string | undefined): void {
    let data: unknown;
    try {
      data = JSON.parse(text ?? 'null') as unknown;
    } catch {
      return; // Not the fleet's progress: ignored, as any other progress is.
    }
    const progress = readProgress(data);
    if (progress === undefined) return;
    if (progress.kind === 'record') {
      const made = receivedRecord(progress.ns, progress.data, `fleet:${this.dispatcher.name}`);
      this.#recorded = this.#recorded.then(() => this.context.record(made)).catch(() => undefined);
    } else if (progress.kind === 'question') this.#ask(progress.key, progress.request);
    else {
      const result: ToolResult = { output: progress.output as ToolResult['output'] };
      if (progress.details !== undefined) result.details = progress.details;
      this.subscriber.next({ final: false, result });
    }
  }

  /** Asks the worker's question through the call's context and sends the answer back. */
  #ask(key: string, request: unknown): void {
    const { publisher, name } = this.dispatcher;
    const list = answersKey(name, this.jobId);
    void this.context
      .elicit(request as ElicitRequest)
      .catch((): ElicitResult => ({ action: 'cancel' }))
      .then((answer) =>
        publisher
          .multi()
          .rpush(list, JSON.stringify({ key, answer }))
          .expire(list, 3600)
          .publish(answersChannel(name), this.jobId)
          .exec(),
      )
      .catch(() => undefined);
  }
}
