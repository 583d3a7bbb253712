/**
 * Records: details meant to outlive the run, written by a recorder that does not know their type.
 *
 * @module
 */
import type { ToolCall } from './contract.js';
import { RecordError } from './errors.js';

/**
 * Implemented by a details value meant to outlive the run. `recordNS()` names its namespace,
 * `"owner:kind"` by convention, matching {@link RECORD_NS} (`shell:process-group`). The data is
 * the value's `JSON.stringify`, so a class shapes it with `toJSON` as anywhere else.
 */
export interface Recordable {
  /** The record's namespace, `"owner:kind"`, matching {@link RECORD_NS}. */
  recordNS(): string;
}

/**
 * The namespaces a record may have: 1 to 128 characters, lower-case letters, digits and `.` `_`
 * `:` `-`, starting with a letter or a digit (`shell:process-group`, `ops:deployment.v2`). No
 * `__proto__`, no upper case, no space, no control character: a namespace is a key in whatever
 * the recorder writes to, and a line on a terminal.
 */
export const RECORD_NS = /^[a-z0-9][a-z0-9._:-]{0,127}$/;

/** The durable form of a {@link Recordable}: its namespace and its JSON text. */
export interface ToolRecord {
  /** The namespace, from `recordNS()`. */
  readonly ns: string;
  /** The value's JSON text. */
  readonly data: string;
  /**
   * Set on a record that came from an MCP server (see `RECORDS_META_KEY`): the name the server
   * gave itself (its `serverInfo.name`, `"mcp"` when it gave none). Such a record says what a
   * peer reports it did, on its own machine: a recorder that acts on records (kills a process
   * group, removes a directory) acts only on those without `remote`. Absent on a record made in
   * this process.
   */
  readonly remote?: string;
}

/** The records one call may make, by default: see `ExecuteOptions.maxRecords`. */
export const DEFAULT_MAX_RECORDS = 1_000;

/** The bytes of records one call may make, by default (1 MiB): see `ExecuteOptions.maxRecordBytes`. */
export const DEFAULT_MAX_RECORD_BYTES = 1_048_576;

/** `value` as a cap: a number of at least 1 (Infinity for none), else `fallback`. */
export function recordCap(value: number | undefined, fallback: number): number {
  return value !== undefined && value >= 1 ? Math.floor(value) : fallback;
}

/**
 * Marks a {@link Recordable} as received from an MCP server: {@link recordOf} copies the value
 * under this key, the server's name, to the record's `remote`.
 *
 * @internal
 */
export const REMOTE_RECORD: unique symbol = Symbol('agenttool.remoteRecord');

/**
 * Writes one record durably and resolves when it has. Installed once on the executor; called with
 * the call the record belongs to (its `idempotencyKey` filled in), possibly concurrently for
 * different calls. Its rejection reaches
 * the tool, which decides whether a record it could not write fails the call.
 */
export type Recorder = (record: ToolRecord, call: ToolCall) => void | Promise<void>;

/** Whether `value` implements {@link Recordable}. */
export function isRecordable(value: unknown): value is Recordable {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { recordNS?: unknown }).recordNS === 'function'
  );
}

/**
 * The namespace of `details`, checked against {@link RECORD_NS}; a {@link RecordError} when it
 * does not match.
 */
export function recordNamespace(details: Recordable): string {
  const ns = details.recordNS();
  if (typeof ns === 'string' && RECORD_NS.test(ns)) return ns;
  if (typeof ns !== 'string' || ns === '') throw new RecordError('record: empty namespace');
  // As JSON, with everything but printable ASCII as a \u escape: no escape sequence in a message.
  const shown = JSON.stringify(ns.length > 64 ? ns.slice(0, 64) : ns).replace(
    /[^\x20-\x7e]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  throw new RecordError(
    `record: invalid namespace ${shown}${ns.length > 64 ? '…' : ''}: 1 to 128 of a-z 0-9 . _ : -, starting with a letter or a digit`,
  );
}

/**
 * The record of `details` when it is {@link Recordable}, and undefined for anything else, which is
 * not an error: most details are for subscribers in the same process. A namespace that does not
 * match {@link RECORD_NS}, or a value that does not serialise, throws a {@link RecordError}.
 */
export function recordOf(details: unknown): ToolRecord | undefined {
  if (!isRecordable(details)) return undefined;
  const ns = recordNamespace(details);
  let data: string | undefined;
  try {
    data = JSON.stringify(details);
  } catch (err) {
    throw new RecordError(`record ${ns}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  if (data === undefined) throw new RecordError(`record ${ns}: value does not serialise to JSON`);
  const remote = (details as { [REMOTE_RECORD]?: unknown })[REMOTE_RECORD];
  return typeof remote === 'string' ? { ns, data, remote } : { ns, data };
}

/** How many bytes `text` takes in UTF-8. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 2; // a surrogate pair: 4 bytes for its 2 units
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * What a NotReplayedError says a call's earlier run finished, from its records (` after steps
 * "download", "unpack"`), or undefined; installed by `registerSteps` (lib/steps.ts), unset in a browser bundle
 * that does not call it.
 */
export let stepsRan:
  ((records: readonly ToolRecord[] | undefined) => string | undefined) | undefined;

/** Installs {@link stepsRan}. */
export function installStepsRan(ran: typeof stepsRan): void {
  stepsRan = ran;
}

/**
 * The hash of a call's arguments that a resume journal keeps beside its call id (lib/args-hash.ts);
 * installed by `registerSteps`, unset in a browser bundle that does not call it (its journal then
 * matches a call by id and tool name).
 */
export let argsHashOf: ((args: string) => string) | undefined;

/** Installs {@link argsHashOf}. */
export function installArgsHash(hash: typeof argsHashOf): void {
  argsHashOf = hash;
}
