/**
 * A remote call's askings of its proxy's client for its roots (relayed-roots.ts): each answered
 * once, and those still open taken back when the call ends.
 *
 * @module
 */
import type { Subscription } from 'rxjs';
import type { RelayedRoot, RootsAsker } from '../mcp-shared/relayed-roots.js';

/** The askings of one call (see the module). */
export class RootsAskings {
  private readonly open = new Set<Subscription>();

  /** Asks through `asker` (under `key`): the client's roots, or undefined when it gave none. */
  ask(asker: RootsAsker, key: string | undefined): Promise<readonly RelayedRoot[] | undefined> {
    return new Promise((resolve) => {
      const subscription = asker(key).subscribe({
        next: resolve,
        error: () => resolve(undefined),
        complete: () => resolve(undefined),
      });
      if (subscription.closed) return;
      this.open.add(subscription);
      subscription.add(() => {
        this.open.delete(subscription);
        resolve(undefined);
      });
    });
  }

  /** Takes back the askings still open (the call ended): each gives no roots. */
  drop(): void {
    for (const subscription of [...this.open]) subscription.unsubscribe();
  }
}
