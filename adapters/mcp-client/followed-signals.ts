/**
 * `FollowedSignals`: request signals of our own, each aborted with the signal it follows, and one
 * listener on that signal only while it has requests running.
 *
 * @module
 */

/** The requests following one signal, and the listener that aborts them. */
interface Followers {
  readonly live: Set<AbortController>;
  readonly onAbort: () => void;
}

/**
 * The signals a transport's requests come with, each followed by one abort listener for all the
 * requests running on it. fetch lets go of a signal's listener only when its request is collected,
 * so thousands of requests on the transport's one signal would pile up listeners (Node's
 * MaxListenersExceededWarning); a request here gets a signal of its own instead. The listener is
 * removed when the signal's last request is done: the SDK alternates between its transport's
 * signal and one made for a single request, and a listener left behind on every switch would pile
 * up the same way.
 */
export class FollowedSignals {
  private readonly followed = new Map<AbortSignal, Followers>();

  /**
   * A signal aborted with `shared`, for one request, and the function to call once that request
   * is done (idempotent). An aborted `shared` gives an aborted signal.
   */
  own(shared: AbortSignal): { signal: AbortSignal; release: () => void } {
    const own = new AbortController();
    if (shared.aborted) {
      own.abort(shared.reason);
      return { signal: own.signal, release: () => undefined };
    }
    const followers = this.followed.get(shared) ?? this.follow(shared);
    followers.live.add(own);
    const release = (): void => {
      followers.live.delete(own);
      if (followers.live.size > 0 || this.followed.get(shared) !== followers) return;
      this.followed.delete(shared);
      shared.removeEventListener('abort', followers.onAbort);
    };
    return { signal: own.signal, release };
  }

  private follow(shared: AbortSignal): Followers {
    const live = new Set<AbortController>();
    const onAbort = (): void => {
      this.followed.delete(shared);
      for (const own of [...live]) own.abort(shared.reason);
      live.clear();
    };
    const followers = { live, onAbort };
    this.followed.set(shared, followers);
    shared.addEventListener('abort', onAbort, { once: true });
    return followers;
  }
}
