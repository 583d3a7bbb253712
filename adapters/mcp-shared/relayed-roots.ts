/**
 * The roots of the client a proxy's call serves, asked during the call: a server that re-serves a
 * remote tool (`createMcpServer` given `roots`, a RootsRelay) gives the call's context a way to
 * ask its own client (MCP 2026-07-28: a `roots/list` input request of the call), and the remote
 * call's server's `roots/list` is answered with that client's answer (client-roots.ts).
 *
 * @module
 */
import type { Observable } from 'rxjs';

/** One root, as MCP's `roots/list` carries it. */
export interface RelayedRoot {
  /** The root's location, a `file://` URI. */
  uri: string;
  /** What the client calls it, if it names it. */
  name?: string;
}

/**
 * Asks the call's client for its roots, under `key` when given (the key the upstream gave its own
 * input request, kept as questions keep theirs): emits the client's roots once, or undefined when
 * it gave no list of roots (the call ended first, or its answer is not one); unsubscribing takes
 * the question back.
 */
export type RootsAsker = (key?: string) => Observable<readonly RelayedRoot[] | undefined>;

const askers = new WeakMap<object, RootsAsker>();

/** Gives `context` (a served call's) the way to ask its client for its roots. */
export function relayRoots(context: object, ask: RootsAsker): void {
  askers.set(context, ask);
}

/** How the call of `context` asks its client for its roots, when a proxy gave it one. */
export function rootsAskerOf(context: object): RootsAsker | undefined {
  return askers.get(context);
}

/**
 * A client's answer to `roots/list` as a list of roots, or undefined when it is not one: an
 * object whose `roots` is an array of `{ uri, name? }` with a `file://` URI (MCP allows no other
 * scheme) and, when there, a string name.
 */
export function rootsOfAnswer(answer: unknown): RelayedRoot[] | undefined {
  const roots = (answer as { roots?: unknown } | null | undefined)?.roots;
  if (!Array.isArray(roots)) return undefined;
  const list: RelayedRoot[] = [];
  for (const root of roots as unknown[]) {
    const { uri, name } = (root ?? {}) as { uri?: unknown; name?: unknown };
    if (typeof uri !== 'string' || !uri.startsWith('file://')) return undefined;
    if (name !== undefined && typeof name !== 'string') return undefined;
    list.push(name === undefined ? { uri } : { uri, name });
  }
  return list;
}
