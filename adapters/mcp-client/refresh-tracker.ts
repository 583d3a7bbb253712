/**
 * The bookkeeping of a remote tool list: which tools/list_changed notifications the current list
 * reflects, coalesced refreshes, and the grace a call waits for a notification not yet sent.
 *
 * @module
 */

interface Waiter {
  ready(): boolean;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Runs `fetch` one at a time. A notification or a refresh request that arrives while a fetch runs
 * makes one more fetch after it, however many arrive: refreshes coalesce. A fetch reflects every
 * notification received before it started.
 */
export class RefreshTracker {
  private received = 0;
  private reflected = 0;
  private started = 0;
  private landed = 0;
  private running = false;
  private again = false;
  private waiters: Waiter[] = [];
  private readonly graceWaiters = new Set<() => void>();
  private closedBy: Error | undefined = undefined;

  constructor(
    private readonly fetch: () => Promise<void>,
    /** ms a call waits for a notification; 0 when the server sends none or the application said so. */
    private readonly grace: number,
  ) {}

  /** A tools/list_changed notification arrived. */
  notified(): void {
    this.received++;
    for (const wake of [...this.graceWaiters]) wake();
    this.start();
  }

  /** Resolves once a fetch that started after this call has landed. */
  refresh(): Promise<void> {
    const run = this.started + 1;
    const wait = this.wait(() => this.landed >= run);
    this.start();
    return wait;
  }

  /** Resolves once the list reflects every notification received before this call. */
  settled(): Promise<void> {
    const target = this.received;
    if (this.closedBy === undefined && this.reflected >= target) return Promise.resolve();
    const wait = this.wait(() => this.reflected >= target);
    if (!this.running) this.start();
    return wait;
  }

  /**
   * What a call that has its answer waits for before returning: a pending refresh, or else, for a
   * tool that is not read-only of a server that has sent a notification before, up to the grace
   * for a notification (and then its refresh).
   * Undefined when there is nothing to wait for. Never rejects.
   */
  afterCall(readOnly: boolean): Promise<unknown> | undefined {
    if (this.closedBy !== undefined) return undefined;
    if (this.reflected < this.received) return this.settled();
    // Only a server that has sent a notification in this session is waited for: one that never
    // does would cost every call the whole grace for nothing.
    if (readOnly || this.grace <= 0 || this.received === 0) return undefined;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.graceWaiters.delete(wake);
        resolve();
      }, this.grace);
      const wake = (): void => {
        clearTimeout(timer);
        this.graceWaiters.delete(wake);
        this.settled().then(resolve, () => resolve());
      };
      this.graceWaiters.add(wake);
    });
  }

  /** Fails every waiter with `reason` and ends every grace early; nothing is fetched again. */
  close(reason: Error): void {
    if (this.closedBy !== undefined) return;
    this.closedBy = reason;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(reason);
    for (const wake of [...this.graceWaiters]) wake();
  }

  private wait(ready: () => boolean): Promise<void> {
    if (this.closedBy !== undefined) return Promise.reject(this.closedBy);
    return new Promise<void>((resolve, reject) => this.waiters.push({ ready, resolve, reject }));
  }

  private start(): void {
    if (this.closedBy !== undefined) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.again = false;
    const run = ++this.started;
    const covers = this.received;
    this.fetch().then(
      () => {
        this.running = false;
        this.landed = run;
        if (covers > this.reflected) this.reflected = covers;
        this.waiters = this.waiters.filter((waiter) => {
          if (!waiter.ready()) return true;
          waiter.resolve();
          return false;
        });
        if (this.again || this.received > this.reflected) this.start();
      },
      (error: unknown) => {
        this.running = false;
        const waiters = this.waiters;
        this.waiters = [];
        for (const waiter of waiters) waiter.reject(error);
        if (this.again) this.start();
      },
    );
  }
}
