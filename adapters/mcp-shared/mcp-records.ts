/**
 * Records across MCP: the records a served call made travel to the client in its result's
 * `_meta`, under {@link RECORDS_META_KEY}, and the client writes them through the calling job's
 * recorder.
 *
 * @module
 */
import type { CallToolResult } from './mcp-types.js';
import { REMOTE_RECORD, type Recordable, type ToolRecord } from '../../lib/records.js';

/**
 * The `_meta` key of a tools/call result that carries the records the call made: a list of
 * `{ ns, data }` ({@link ToolRecord}: the namespace, and the value's JSON text), in the order the
 * tool made them. Namespaced as MCP asks of `_meta` keys, so other clients ignore it.
 */
export const RECORDS_META_KEY = 'io.agenttool/records';

/**
 * Whether a tools/call request's `_meta` asks for the records: `RECORDS_META_KEY` set to `true`.
 * `connectMcp` asks on every call; a client that does not ask gets results without them, so a
 * client that shows a result's `_meta` never shows records it cannot read.
 */
export function asksForRecords(meta: unknown): boolean {
  return (
    typeof meta === 'object' &&
    meta !== null &&
    (meta as Record<string, unknown>)[RECORDS_META_KEY] === true
  );
}

/** `result` without records in its `_meta` (a proxy's upstream sent them): a copy, when it had some. */
export function withoutRecords(result: CallToolResult): CallToolResult {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (meta === undefined || !Object.hasOwn(meta, RECORDS_META_KEY)) return result;
  const { [RECORDS_META_KEY]: _dropped, ...rest } = meta;
  void _dropped;
  const copy: CallToolResult = { ...result };
  if (Object.keys(rest).length === 0) delete copy._meta;
  else copy._meta = rest;
  return copy;
}

/**
 * `result` with `records` under {@link RECORDS_META_KEY} in its `_meta` (replacing any there, so
 * a proxy sends what its call recorded, once), or `result` itself when there are none. `result`
 * is not changed: a proxy's result is its upstream's object.
 */
export function withRecords(
  result: CallToolResult,
  records: readonly ToolRecord[],
): CallToolResult {
  if (records.length === 0) return result;
  const list = records.map(({ ns, data }) => ({ ns, data }));
  return { ...result, _meta: { ...result._meta, [RECORDS_META_KEY]: list } };
}

/**
 * A record that came over MCP, as a Recordable whose JSON text is the one that was sent, marked
 * as remote (`ToolRecord.remote`). Its text is parsed when it is written, so that records past a
 * cap cost nothing; text that is not JSON makes `recordOf` refuse it.
 */
class ReceivedRecord implements Recordable {
  readonly [REMOTE_RECORD]: string;

  constructor(
    private readonly ns: string,
    private readonly data: string,
    server: string,
  ) {
    this[REMOTE_RECORD] = server;
  }

  recordNS(): string {
    return this.ns;
  }

  toJSON(): unknown {
    return JSON.parse(this.data);
  }
}

/**
 * A record made elsewhere (`ns` and its JSON text `data`), as a Recordable to pass to
 * `context.record`, marked as made by `source` (the record's `remote`): what a peer reports it
 * did on its own machine.
 */
export function receivedRecord(ns: string, data: string, source: string): Recordable {
  return new ReceivedRecord(ns, data, source);
}

/**
 * The records a result carries under {@link RECORDS_META_KEY}, as Recordables to pass to
 * `context.record`, in order, each marked as sent by `server` (the record's `remote`). An entry
 * that is not `{ ns, data }` with a non-empty string `ns` and a string `data` is not a record
 * this library sent, and is skipped; a namespace the grammar refuses (`RECORD_NS`) or `data`
 * that is not JSON text is refused when written, by `context.record`.
 */
export function recordsOf(result: CallToolResult, server: string): Recordable[] {
  const list = (result._meta as Record<string, unknown> | undefined)?.[RECORDS_META_KEY];
  if (!Array.isArray(list)) return [];
  const out: Recordable[] = [];
  for (const entry of list as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { ns, data } = entry as { ns?: unknown; data?: unknown };
    if (typeof ns !== 'string' || ns === '' || typeof data !== 'string') continue;
    out.push(new ReceivedRecord(ns, data, server));
  }
  return out;
}
