/**
 * The roots a client offers a server (MCP's `roots/list`): declared, answered, and announced when
 * they change.
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/client';
import { isObservable, type Observable, type Subscription } from 'rxjs';
import { callTokenOf } from '../mcp-shared/call-token.js';
import { callOf, relatedTaskOf } from './asking-call.js';
import type { InFlightCall } from './remote-connection.js';

/** One root: a `file://` URI the server may work in, and a name to show for it. */
export interface McpRoot {
  /** A `file://` URI (MCP allows no other scheme); `pathToFileURL(dir).href` makes one. */
  uri: string;
  /** A name for the root, for the server to show. */
  name?: string;
}

/**
 * The roots a client offers: a fixed list; a function asked on every `roots/list` (it may return
 * a Promise); or an Observable whose latest list is the answer and whose every later list is
 * announced to the server with `notifications/roots/list_changed`.
 */
export type McpRoots =
  | readonly McpRoot[]
  | (() => readonly McpRoot[] | Promise<readonly McpRoot[]>)
  | Observable<readonly McpRoot[]>;

/** The roots as MCP sends them; a root that is not a `file://` URI is refused with a clear error. */
function checked(roots: readonly McpRoot[]): { uri: string; name?: string }[] {
  return roots.map((root) => {
    if (typeof root?.uri !== 'string' || !root.uri.startsWith('file://'))
      throw new TypeError(`roots: ${JSON.stringify(root?.uri)} is not a file:// URI`);
    return root.name === undefined ? { uri: root.uri } : { uri: root.uri, name: root.name };
  });
}

/** The roots a connection offers its server (`offerRoots`). */
export interface OfferedRoots {
  connected(): void;
  close(): void;
  declared: { listChanged?: true };
  answerCalls(inFlight: ReadonlySet<InFlightCall>): void;
}

/**
 * Offers `roots` on `client`, which must not be connected yet: declares the `roots` capability
 * (with `listChanged` for an Observable) and answers `roots/list`. Call `connected()` once the
 * session is open (later lists from an Observable are announced from then on) and `close()` when
 * it ends. A fixed list is checked at once (throws TypeError for a URI that is not `file://`).
 * `declared` is the capability declared, which a call of MCP 2026-07-28 carries in its own
 * client capabilities.
 *
 * Given the connection's calls (`answerCalls`), a `roots/list` that belongs to a call (see
 * `callOf`: during it, in 2026-07-28 an input request of its result) whose context relays for a
 * client of a proxy that asks it for its roots (relayed-roots.ts) is answered with that client's
 * roots; with `roots` when the client gave none.
 */
export function offerRoots(client: Client, roots: McpRoots): OfferedRoots {
  let answer: () => Promise<{ uri: string; name?: string }[]>;
  let subscription: Subscription | undefined;
  let open = false;
  if (isObservable(roots)) {
    let latest: readonly McpRoot[] | undefined;
    let first: (() => void) | undefined;
    const arrived = new Promise<void>((resolve) => (first = resolve));
    subscription = roots.subscribe({
      next: (list) => {
        const later = latest !== undefined;
        latest = list;
        first?.();
        if (later && open) client.sendRootsListChanged().catch(() => undefined);
      },
      error: () => first?.(),
    });
    answer = async () => {
      await arrived;
      return checked(latest ?? []);
    };
  } else if (typeof roots === 'function') {
    answer = async () => checked(await roots());
  } else {
    const fixed = checked(roots as readonly McpRoot[]);
    answer = () => Promise.resolve(fixed);
  }
  const declared = subscription === undefined ? {} : { listChanged: true as const };
  client.registerCapabilities({ roots: declared });
  let calls: ReadonlySet<InFlightCall> | undefined;
  // In MCP 2026-07-28 a `roots/list` input request comes with its key as the request id: the
  // proxy asks its own client under the same key.
  const keyOf = (id: unknown): string | undefined =>
    client.getProtocolEra() === 'modern' && typeof id === 'string' ? id : undefined;
  client.setRequestHandler('roots/list', async (request, ctx) => {
    const meta = request.params?._meta;
    const call =
      calls === undefined ? undefined : callOf(calls, callTokenOf(meta), relatedTaskOf(meta));
    const theirs = await call?.roots(keyOf(ctx.mcpReq.id));
    if (theirs !== undefined)
      return {
        roots: theirs.map((r) =>
          r.name === undefined ? { uri: r.uri } : { uri: r.uri, name: r.name },
        ),
      };
    return { roots: await answer() };
  });
  return {
    answerCalls: (inFlight) => {
      calls = inFlight;
    },
    declared,
    connected: () => {
      open = true;
    },
    close: () => {
      open = false;
      subscription?.unsubscribe();
    },
  };
}
