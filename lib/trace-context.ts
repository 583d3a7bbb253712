/**
 * W3C trace context, checked: a call's `trace`, and MCP's `_meta` (`traceparent`, `tracestate`;
 * MCP 2026-07-28 names the keys, and 2025-11-25 carries them as any `_meta` key), read from a
 * request a server serves, written into a request a client sends. A value that breaks the W3C
 * format is dropped, as the format says a receiver does, so a peer's bad trace context never
 * fails a call.
 *
 * @module
 */
import type { TraceContext } from './contract.js';

/** `version-traceid-parentid-flags`, in lower-case hex; later versions may add fields. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-[^\s]*)?$/;
/** At most 32 list members of `key=value`, 512 characters, printable ASCII. */
const TRACESTATE = /^[\x20-\x7e]{0,512}$/;

/** The trace context of a request's `_meta`, or undefined when it has none that is valid. */
export function traceOf(meta: unknown): TraceContext | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const { traceparent, tracestate } = meta as { traceparent?: unknown; tracestate?: unknown };
  if (typeof traceparent !== 'string') return undefined;
  const parts = TRACEPARENT.exec(traceparent);
  if (parts === null) return undefined;
  const [, version, traceId, parentId, extra] = parts;
  // Version ff is invalid; version 00 has exactly four fields; all-zero ids are invalid.
  if (version === 'ff' || (version === '00' && extra !== undefined)) return undefined;
  if (/^0+$/.test(traceId!) || /^0+$/.test(parentId!)) return undefined;
  const state =
    typeof tracestate === 'string' && tracestate.trim() !== '' && TRACESTATE.test(tracestate)
      ? tracestate
      : undefined;
  return state === undefined ? { traceparent } : { traceparent, tracestate: state };
}

/** The `_meta` members that carry `trace` (none for none, or for one that is not valid). */
export function traceMeta(trace: TraceContext | undefined): Record<string, string> {
  const valid = trace === undefined ? undefined : traceOf(trace);
  if (valid === undefined) return {};
  return valid.tracestate === undefined
    ? { traceparent: valid.traceparent }
    : { traceparent: valid.traceparent, tracestate: valid.tracestate };
}
