/**
 * Records: details meant to outlive the run, written by a recorder that does not know their type.
 *
 * @module
 */
import type { ToolCall } from './contract.js';

/**
 * Implemented by a details value meant to outlive the run. `recordNS()` names its namespace,
 * `"owner:kind"` by convention, and must not be empty. The data is the value's `JSON.stringify`,
 * so a class shapes it with `toJSON` as anywhere else.
 */
export interface Recordable {
  /** The record's namespace, `"owner:kind"`; never empty. */
  recordNS(): string;
}

/** The durable form of a {@link Recordable}: its namespace and its JSON text. */
export interface ToolRecord {
  /** The namespace, from `recordNS()`. */
  readonly ns: string;
  /** The value's JSON text. */
  readonly data: string;
}

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
 * The record of `details` when it is {@link Recordable}, and undefined for anything else, which is
 * not an error: most details are for subscribers in the same process. An empty namespace or a
 * value that does not serialise throws.
 */
export function recordOf(details: unknown): ToolRecord | undefined {
  if (!isRecordable(details)) return undefined;
  const ns = details.recordNS();
  if (typeof ns !== 'string' || ns === '') throw new Error('record: empty namespace');
  let data: string | undefined;
  try {
    data = JSON.stringify(details);
  } catch (err) {
    throw new Error(`record ${ns}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  if (data === undefined) throw new Error(`record ${ns}: value does not serialise to JSON`);
  return { ns, data };
}
