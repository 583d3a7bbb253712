/**
 * The request timeout of a connection's calls, with one timer for all of them.
 *
 * @module
 */

/** A call with a deadline: it times out when the deadline passes before it ends. */
export interface TimedCall {
  /** When the call times out, on `performance.now()`'s clock; restarted by its progress. */
  deadline: number;
  /** The deadline passed: the call fails and is cancelled. */
  timeOut(): void;
}

/** Timers that fire up to this many ms early on `performance.now()`'s clock still count. */
const SLACK = 1;

/**
 * The timeout each call asks of the SDK: the longest a Node timer waits, so that the SDK never
 * times a call out itself (its deadline here comes first).
 */
export const SDK_TIMEOUT = 2_147_483_647;

function idle(): void {}

/**
 * Times out the calls of one connection after `timeout` ms without a word from the server.
 *
 * Each call only notes its deadline ({@link CallDeadlines.start}, and again on each progress
 * notification); one timer, armed for the earliest deadline, checks the calls in flight when it
 * fires and arms again for the next. A call that starts while the timer is armed needs nothing
 * more: every deadline is its call's last word plus the same `timeout`, so the armed timer is due
 * first. The timer does not keep the process alive (`unref`): a call waiting for its answer keeps
 * its connection open, which does.
 */
export class CallDeadlines {
  private timer: ReturnType<typeof setTimeout> | undefined = undefined;
  /**
   * A timer of {@link SDK_TIMEOUT} held while the connection is open. Node keeps one list of
   * timers per duration and drops a list when its last timer goes: without this one, the SDK's
   * timer of every call made and dropped that list, which measured 1.5 to 2 µs a call. It never
   * fires in practice and does not keep the process alive.
   */
  private keeper: ReturnType<typeof setInterval> | undefined;

  /**
   * @param timeout ms; Infinity, or anything not a positive finite number, means never.
   * @param calls the calls in flight, which the timer checks.
   */
  constructor(
    readonly timeout: number,
    private readonly calls: Iterable<TimedCall>,
  ) {
    const keeper = setInterval(idle, SDK_TIMEOUT);
    if (typeof keeper === 'object' && typeof keeper.unref === 'function') keeper.unref();
    this.keeper = keeper;
  }

  /** Whether calls time out at all. */
  get enabled(): boolean {
    return this.timeout > 0 && Number.isFinite(this.timeout);
  }

  /** A call starts (or hears from the server): its deadline is `timeout` ms from now. */
  start(call: TimedCall): void {
    if (!this.enabled) return;
    call.deadline = performance.now() + this.timeout;
    if (this.timer === undefined) this.arm(this.timeout);
  }

  /** Stops the timers (the connection has ended); calls started after this arm the deadline again. */
  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.keeper !== undefined) clearInterval(this.keeper);
    this.keeper = undefined;
  }

  private arm(ms: number): void {
    const timer = setTimeout(() => this.check(), Math.max(0, Math.ceil(ms)));
    if (typeof timer === 'object' && typeof timer.unref === 'function') timer.unref();
    this.timer = timer;
  }

  private check(): void {
    this.timer = undefined;
    const now = performance.now();
    const due: TimedCall[] = [];
    let next = Infinity;
    for (const call of this.calls) {
      if (call.deadline <= now + SLACK) due.push(call);
      else if (call.deadline < next) next = call.deadline;
    }
    if (next !== Infinity) this.arm(next - now);
    for (const call of due) call.timeOut();
  }
}
