/**
 * The lists the scheduler keeps calls in: waiting calls in a FIFO per resource and in a heap by
 * job index, running calls in an intrusive list. Each is O(1) amortised per call (the heap
 * O(log n) in the calls it holds, which are at most one per resource) and none ever shifts or
 * splices an array: a 100k batch must not pay a copy of its queue per completion.
 *
 * @module
 */

/** Anything the queues order: a waiting call knows its job index. */
export interface Indexed {
  readonly index: number;
}

/**
 * A first-in first-out queue over an array and a head index. Taken slots are cleared so what they
 * held can be collected, and the array is reset when it empties or compacted once the dead prefix
 * is both large and more than half of it, which keeps a long-lived queue's memory bounded at O(1)
 * amortised cost per item.
 */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  /** How many items are queued. */
  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** Removes and returns the oldest item, or undefined when empty. */
  shift(): T | undefined {
    const items = this.items;
    if (this.head === items.length) return undefined;
    const item = items[this.head];
    items[this.head++] = undefined;
    if (this.head === items.length) {
      items.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= items.length) {
      this.items = items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Moves every item into `out`, oldest first, leaving the queue empty. */
  drainInto(out: T[]): void {
    for (let i = this.head; i < this.items.length; i++) out.push(this.items[i] as T);
    this.items = [];
    this.head = 0;
  }
}

/**
 * A binary min-heap by job index. It holds the calls whose turn came while no slot was free (the
 * next call of a resource that has just been released), so that a freed slot can take the
 * earliest of them without a scan.
 */
export class IndexHeap<T extends Indexed> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    const items = this.items;
    let i = items.length;
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent].index <= item.index) break;
      items[i] = items[parent];
      i = parent;
    }
    items[i] = item;
  }

  /** The item with the smallest index, left in place, or undefined when empty. */
  peek(): T | undefined {
    return this.items[0];
  }

  /** Removes and returns the item with the smallest index, or undefined when empty. */
  pop(): T | undefined {
    const items = this.items;
    if (items.length === 0) return undefined;
    const top = items[0];
    const last = items.pop() as T;
    const n = items.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const right = left + 1;
        const child = right < n && items[right].index < items[left].index ? right : left;
        if (items[child].index >= last.index) break;
        items[i] = items[child];
        i = child;
      }
      items[i] = last;
    }
    return top;
  }

  /** Moves every item into `out`, in no particular order, leaving the heap empty. */
  drainInto(out: T[]): void {
    for (const item of this.items) out.push(item);
    this.items.length = 0;
  }
}

/** A node of a {@link RunningList}: the links live on the call itself, so linking allocates nothing. */
export interface Linked<T> {
  prevRunning: T | undefined;
  nextRunning: T | undefined;
}

/**
 * The running calls, in the order they started: a doubly linked list through the calls' own
 * fields, so a call leaves it in O(1) when it ends and cancelling a batch needs no registry.
 */
export class RunningList<T extends Linked<T>> {
  private first: T | undefined = undefined;
  private last: T | undefined = undefined;

  add(item: T): void {
    item.prevRunning = this.last;
    item.nextRunning = undefined;
    if (this.last === undefined) this.first = item;
    else this.last.nextRunning = item;
    this.last = item;
  }

  remove(item: T): void {
    const { prevRunning: prev, nextRunning: next } = item;
    if (prev === undefined) this.first = next;
    else prev.nextRunning = next;
    if (next === undefined) this.last = prev;
    else next.prevRunning = prev;
    item.prevRunning = item.nextRunning = undefined;
  }

  /** Empties the list and returns what it held, in start order. */
  takeAll(): T[] {
    const out: T[] = [];
    for (let item = this.first; item !== undefined; item = item.nextRunning) out.push(item);
    this.first = this.last = undefined;
    return out;
  }
}
