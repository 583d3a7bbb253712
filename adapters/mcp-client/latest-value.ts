/**
 * The latest value of a list and the subscribers that follow it: what `connectMcp`'s `tools$`
 * needs of rxjs's BehaviorSubject, which would bring rxjs's Subject into a browser page that has
 * no other use for it (about 660 B min+gzip; test/browser/mcp-client-browser.test.ts holds the client to
 * its budget).
 *
 * @module
 */
import { Observable, type Subscriber } from 'rxjs';

/**
 * A value and its followers: `value$` emits the current value on subscription, then each new one
 * (a follower that subscribes while a value is being sent gets it once), and completes on
 * {@link LatestValue.complete}; subscribing after that only completes.
 */
export class LatestValue<T> {
  private readonly followers = new Set<Subscriber<T>>();
  private done = false;
  readonly value$ = new Observable<T>((subscriber) => {
    if (this.done) return subscriber.complete();
    subscriber.next(this.value);
    if (!subscriber.closed) this.followers.add(subscriber);
    return () => void this.followers.delete(subscriber);
  });

  constructor(public value: T) {}

  next(value: T): void {
    if (this.done) return;
    this.value = value;
    for (const follower of [...this.followers]) follower.next(value);
  }

  complete(): void {
    this.done = true;
    for (const follower of [...this.followers]) follower.complete();
    this.followers.clear();
  }
}
