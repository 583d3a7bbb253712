/**
 * `CallAdmission`: how many tools/call requests an HTTP server runs at once, and the bounded queue
 * of those that wait for a slot.
 *
 * @module
 */

/** Gives back the slots a call was admitted with; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  readonly slots: number;
  readonly admit: (release: Release) => void;
}

/**
 * Admits calls up to `max` running at once; past it up to `queue` more wait, first come first
 * served, and any further call is refused at once. A request asking for several slots is
 * admitted whole when they fit, or alone when nothing runs; `McpHttpHandler` asks one slot per
 * call, a JSON-RPC batch's calls one by one, so that no more than `max` ever run.
 */
export class CallAdmission {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  private idleWaiters: (() => void)[] = [];

  constructor(
    readonly max: number,
    readonly queue: number,
  ) {}

  /** Calls running now. */
  get active(): number {
    return this.running;
  }

  /** Calls waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Whether a new call would have to wait (or be refused): every slot is taken. */
  get full(): boolean {
    return this.running >= this.max;
  }

  /**
   * Takes `slots` slots: a Release at once when they are free, a promise of one when the call
   * waits its turn, undefined when the queue is full too (the call is refused: busy). `abandoned`
   * registers what to do when the caller goes away while waiting: its place is given up.
   */
  acquire(
    slots: number,
    abandoned: (leave: () => void) => void,
  ): Release | Promise<Release> | undefined {
    if (this.fits(slots) && this.waiting.length === 0) return this.take(slots);
    if (this.waiting.length >= this.queue) return undefined;
    return new Promise<Release>((resolve) => {
      const waiter: Waiter = { slots, admit: resolve };
      this.waiting.push(waiter);
      abandoned(() => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        this.pump();
      });
    });
  }

  /** Resolves once no call runs (at once when none does). */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private fits(slots: number): boolean {
    return this.running === 0 || this.running + slots <= this.max;
  }

  private take(slots: number): Release {
    this.running += slots;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= slots;
      this.pump();
      if (this.running === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const done of waiters) done();
      }
    };
  }

  private pump(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.slots)) {
      const next = this.waiting.shift()!;
      next.admit(this.take(next.slots));
    }
  }
}
