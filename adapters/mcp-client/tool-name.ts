/**
 * The names a remote tool may have to be listed: a name is what a terminal, a log and the model's
 * function list show, so one that could rewrite a terminal or hide in a listing is left out.
 *
 * @module
 */

/** The longest remote tool name listed, in UTF-16 code units (MCP's own advice is 1 to 128). */
export const MAX_REMOTE_NAME_LENGTH = 128;

// C0 and C1 controls, DEL, and the invisible format characters (bidi overrides and isolates,
// zero-width characters, byte-order mark), plus line and paragraph separators.
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

/** Why `name` is not listed, or undefined when it is fine. */
export function remoteNameProblem(name: string): string | undefined {
  if (name === '') return 'is empty';
  if (name.length > MAX_REMOTE_NAME_LENGTH)
    return `is longer than ${MAX_REMOTE_NAME_LENGTH} characters (${name.length})`;
  if (UNSAFE.test(name)) return 'has control or invisible characters';
  return undefined;
}

/** `name` as a short JSON string with every unsafe character escaped, for a warning line. */
export function printableName(name: string): string {
  const cut = name.length > 40 ? `${name.slice(0, 40)}…` : name;
  return JSON.stringify(cut).replace(
    /[\p{Cc}\p{Cf}\u2028\u2029]/gu,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
