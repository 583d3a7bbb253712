/**
 * `x-mcp-header` (MCP 2026-07-28, Streamable HTTP): a tool argument mirrored into an
 * `Mcp-Param-{Name}` header, so that a load balancer can route a call on it (see docs/mcp.md,
 * "Routing on an argument"). The server declares it in the argument's schema; the client reads
 * the declarations from the listing and sends the headers; the server checks that they say what
 * the body says.
 *
 * @module
 */

/** The schema keyword that names the header. */
export const X_MCP_HEADER = 'x-mcp-header';
/** The JSON-RPC error code of a header that does not say what the body says (HTTP 400). */
export const HEADER_MISMATCH = -32020;

/** One argument mirrored into a header. */
export interface HeaderDeclaration {
  /** The argument's path: a chain of `properties` keys from the schema's root. */
  readonly path: readonly string[];
  /** The header's name without its `Mcp-Param-` prefix, as declared. */
  readonly name: string;
  /** The argument's JSON Schema type. */
  readonly type: 'string' | 'integer' | 'boolean';
}

/** RFC 9110's token (`1*tchar`): what a header name may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords whose subschemas are not reached by a chain of `properties` keys alone. */
const ELSEWHERE: readonly string[] = [
  'items', 'prefixItems', 'contains', 'additionalProperties', 'unevaluatedProperties',
  'unevaluatedItems', 'propertyNames', 'patternProperties', 'dependentSchemas', 'oneOf', 'anyOf',
  'allOf', 'not', 'if', 'then', 'else', '$defs', 'definitions',
]; // prettier-ignore
/** Of {@link ELSEWHERE}, those whose value maps names to subschemas. */
const MAPS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

/** Where a declaration sits, for a message: `region`, `target.repo`, or `the schema's root`. */
function where(path: readonly string[]): string {
  return path.length === 0 ? "the schema's root" : path.join('.');
}

/**
 * The `x-mcp-header` declarations of a tool's input schema (none: an empty list), or why the
 * schema's declarations break the revision's rules, in one line: a name that is not an HTTP
 * token or is declared twice (ignoring case), a declaration on a property that is not a string,
 * an integer or a boolean (a single `type`), or one not reached from the root through
 * `properties` alone (under `items`, `anyOf`, `$defs`, ...). A client leaves such a tool out;
 * agenttool's server does not serve it.
 */
export function headerDeclarations(schema: unknown): readonly HeaderDeclaration[] | string {
  // Scanned once per schema object: a listing is read where it is checked and where it is used.
  if (typeof schema !== 'object' || schema === null) return scan(schema);
  let known = scanned.get(schema);
  if (known === undefined) scanned.set(schema, (known = scan(schema)));
  return known;
}

/** The scans of schema objects (see {@link headerDeclarations}). */
const scanned = new WeakMap<object, readonly HeaderDeclaration[] | string>();

function scan(schema: unknown): readonly HeaderDeclaration[] | string {
  const found: HeaderDeclaration[] = [];
  const seen = new Map<string, string>();
  // Depth-first over an explicit stack: a hostile schema's depth costs no native stack.
  const stack: { node: unknown; path: readonly string[]; reached: boolean }[] = [
    { node: schema, path: [], reached: true },
  ];
  while (stack.length > 0) {
    const { node, path, reached } = stack.pop()!;
    if (typeof node !== 'object' || node === null || Array.isArray(node)) continue;
    const object = node as Record<string, unknown>;
    if (Object.hasOwn(object, X_MCP_HEADER)) {
      const name = object[X_MCP_HEADER];
      if (!reached || path.length === 0)
        return `${where(path)}: ${X_MCP_HEADER} may only be on a property reached from the root through "properties" alone (not under items, anyOf/oneOf/allOf/not, if/then/else, additionalProperties or $defs)`;
      if (typeof name !== 'string' || !TOKEN.test(name))
        return `${where(path)}: ${X_MCP_HEADER} must be a header name (an HTTP token: letters, digits, !#$%&'*+-.^_\`|~), got ${JSON.stringify(name) ?? String(name)}`;
      const type = object.type;
      if (typeof type !== 'string' || !TYPES.has(type))
        return `${where(path)}: ${X_MCP_HEADER} may only be on a string, integer or boolean property (one type), got ${JSON.stringify(type) ?? 'no type'}`;
      const lower = name.toLowerCase();
      const earlier = seen.get(lower);
      if (earlier !== undefined)
        return `${where(path)}: ${X_MCP_HEADER} "${name}" is declared twice (also on ${earlier}; header names ignore case)`;
      seen.set(lower, where(path));
      found.push({ path, name, type: type as HeaderDeclaration['type'] });
    }
    // Pushed last to first, so that they are walked first to last: declarations come in the
    // order the schema states them, and a name declared twice is reported at its second place.
    for (const keyword of [...ELSEWHERE].reverse()) {
      const sub = object[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : MAPS.has(keyword) && typeof sub === 'object' && sub !== null
          ? Object.values(sub)
          : [sub];
      for (let i = branches.length - 1; i >= 0; i--)
        stack.push({ node: branches[i], path: [...path, `<${keyword}>`], reached: false });
    }
    const properties = object.properties;
    if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
      const entries = Object.entries(properties);
      for (let i = entries.length - 1; i >= 0; i--)
        stack.push({ node: entries[i]![1], path: [...path, entries[i]![0]], reached });
    }
  }
  return found;
}

/** The value at `path` in `args`, or undefined. */
function valueAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** An argument value as its header text (before encoding), or undefined for no header. */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

const PREFIX = '=?base64?';
const SUFFIX = '?=';

/** Whether `text` can be sent as it is: visible ASCII, spaces and tabs, no edge whitespace. */
function plain(text: string): boolean {
  if (text.length === 0 || text !== text.trim()) return false;
  if (text.startsWith(PREFIX) && text.endsWith(SUFFIX)) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 9 && (c < 32 || c > 126)) return false;
  }
  return true;
}

/** `text` as a header value: as it is when plain, else `=?base64?<UTF-8, Base64>?=`. */
export function encodeHeaderValue(text: string): string {
  if (plain(text)) return text;
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `${PREFIX}${btoa(binary)}${SUFFIX}`;
}

/** A decimal number (`42`, `-7`, `42.0`): how an integer header is compared, as a number. */
const DECIMAL = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A header value decoded (the Base64 form unwrapped), or undefined when it is malformed. */
export function decodeHeaderValue(value: string): string | undefined {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c !== 9 && (c < 32 || c > 126)) return undefined;
  }
  if (!(value.startsWith(PREFIX) && value.endsWith(SUFFIX) && value.length >= 11)) return value;
  const encoded = value.slice(PREFIX.length, -SUFFIX.length);
  if (!BASE64.test(encoded)) return undefined;
  const binary = atob(encoded);
  const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The `Mcp-Param-*` headers of a call with `args` (a declared argument absent or null: none). */
export function paramHeaders(
  declarations: readonly HeaderDeclaration[],
  args: unknown,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, name } of declarations) {
    const text = textOf(valueAt(args, path));
    if (text !== undefined) headers[`Mcp-Param-${name}`] = encodeHeaderValue(text);
  }
  return headers;
}

/**
 * Why the `Mcp-Param-*` headers of a call with `args` do not say what its body says, in one line
 * (`Header mismatch: ...`), or undefined when they do. `header` reads a request header by its
 * lower-case name. A declared argument present in the body needs its header, equal to it once
 * decoded (an integer compared as a number); an argument absent or null needs none, and a header
 * sent for it is a mismatch too. A value of another type than declared is left to the argument
 * check, which refuses it.
 */
export function headerMismatch(
  declarations: readonly HeaderDeclaration[],
  args: unknown,
  header: (lowerName: string) => string | undefined,
): string | undefined {
  for (const { path, name, type } of declarations) {
    const headerName = `Mcp-Param-${name}`;
    const sent = header(headerName.toLowerCase());
    const value = valueAt(args, path);
    if (value === undefined || value === null) {
      if (sent !== undefined)
        return `Header mismatch: ${headerName} is set but arguments.${path.join('.')} is not`;
      continue;
    }
    const text = textOf(value);
    if (text === undefined) continue;
    if (sent === undefined)
      return `Header mismatch: ${headerName} is missing; arguments.${path.join('.')} is set`;
    const decoded = decodeHeaderValue(sent);
    if (decoded === undefined)
      return `Header mismatch: ${headerName} is not a valid header value (plain ASCII, or =?base64?...?= with valid Base64 of UTF-8)`;
    const same =
      type === 'integer' && typeof value === 'number'
        ? DECIMAL.test(decoded) && Number(decoded) === value
        : decoded === text;
    if (!same)
      return `Header mismatch: ${headerName} says ${JSON.stringify(decoded)}, arguments.${path.join('.')} is ${JSON.stringify(value)}`;
  }
  return undefined;
}
