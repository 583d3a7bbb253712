/**
 * A failed zod parse (v4 `zod` or v3 `zod/v3`) as one ValidationError phrased for the model, in
 * the style of the schema checks: the first issue only, zod's issue codes mapped to the same
 * phrases, and a refinement's own message passed through.
 *
 * @module
 */
import { ValidationError, describeThrown, oneLine } from '../errors.js';
import { describeExpected, describeValue, formatPath, listValues, quote } from './format.js';
import { type Failure, mostRelevant } from './union.js';
import {
  formatDetail,
  isIssue,
  isSized,
  sizeDetail,
  type Issue,
  type Found,
} from './zod-checks.js';

/** The value the issue's path is relative to, when the caller gave it. */
interface Input {
  root: unknown;
  known: boolean;
}

type ZodFailure = Failure<PropertyKey[]>;

/**
 * The ValidationError for a failed zod parse: `error` is the ZodError (v3 or v4) from `parse` or
 * `safeParse`, `input` the value that was parsed. Only the first issue is reported. Issues of
 * zod's own checks are rephrased (`expected string, got 1`, `missing required property "x"`);
 * a refinement's message (code `custom`) is passed through on one line. Values appear as `got ...`
 * when `input` is given or the issue carries it (zod v4's `reportInput`); otherwise only the type
 * zod reports as received, if any. Anything other than a
 * ZodError becomes a ValidationError at the root carrying its message.
 */
export function zodValidationError(error: unknown, input?: unknown): ValidationError {
  const issues = issuesOf(error);
  const first = issues?.[0];
  if (first === undefined) {
    return new ValidationError('', oneLine(describeThrown(error)) || 'is not valid');
  }
  const failure = explain(first, [], { root: input, known: input !== undefined });
  return new ValidationError(formatPath(failure.where), failure.detail);
}

function issuesOf(error: unknown): Issue[] | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const issues = (error as { issues?: unknown }).issues;
  return Array.isArray(issues) ? issues.filter(isIssue) : undefined;
}

/** Explains `issue`, whose path is relative to `base` (v4 nests relative paths in unions). */
function explain(issue: Issue, base: PropertyKey[], input: Input): ZodFailure {
  const path = [...base, ...issue.path];
  // v4 parsed with `reportInput: true` carries the value on the issue itself.
  const found = 'input' in issue ? { known: true, value: issue.input } : valueAt(input, path);
  const failure = (detail: string, where = path): ZodFailure => ({
    where,
    key: keyOf(where),
    depth: where.length,
    detail,
    got: found.known ? describeValue(found.value) : undefined,
  });
  const got = found.known ? `, got ${describeValue(found.value)}` : '';
  switch (issue.code) {
    case 'invalid_type': {
      const expected = issue.expected === 'int' ? 'integer' : String(issue.expected);
      const last = path[path.length - 1];
      if (typeof last === 'string' && isMissing(issue, input, found)) {
        return failure(`missing required property ${quote(last)}`, path.slice(0, -1));
      }
      const received = found.known ? found.value : receivedType(issue);
      const shown = found.known ? describeValue(received) : received;
      const f = failure(`expected ${expected}${shown === undefined ? '' : `, got ${shown}`}`);
      return { ...f, got: typeof shown === 'string' ? shown : undefined, types: [expected] };
    }
    case 'too_small':
    case 'too_big':
      return failure(sizeDetail(issue, found) + (isSized(issue) ? '' : got));
    case 'invalid_format':
    case 'invalid_string':
      return failure(`expected ${formatDetail(issue)}${got}`);
    case 'not_multiple_of':
      return failure(`expected a multiple of ${String(issue.divisor ?? issue.multipleOf)}${got}`);
    case 'unrecognized_keys': {
      const keys = Array.isArray(issue.keys) ? issue.keys : [];
      return failure(`unexpected property ${quote(String(keys[0]))}`);
    }
    case 'invalid_union':
      return unionOf(issue, path, input) ?? failure('does not match any allowed shape');
    case 'invalid_union_discriminator':
    case 'invalid_value':
    case 'invalid_literal':
    case 'invalid_enum_value': {
      const values = allowedValues(issue);
      const shown = found.known
        ? describeValue(found.value)
        : 'received' in issue
          ? describeValue(issue.received)
          : undefined;
      const accepted =
        values.length === 1 ? describeExpected(values[0]) : `one of ${listValues(values)}`;
      const f = failure(`expected ${accepted}${shown === undefined ? '' : `, got ${shown}`}`);
      return { ...f, got: shown, values };
    }
    case 'invalid_key': {
      const inner = nestedIssues(issue)[0];
      const name = path[path.length - 1];
      if (inner === undefined) return failure('invalid property name');
      const named = explain(inner, [], {
        root: typeof name === 'symbol' ? undefined : name,
        known: true,
      });
      return failure(`invalid property name: ${named.detail}`, path.slice(0, -1));
    }
    case 'invalid_element': {
      const inner = nestedIssues(issue)[0];
      return inner === undefined ? failure('invalid element') : explain(inner, path, input);
    }
    case 'not_finite':
      return failure(`expected a finite number${got}`);
    case 'invalid_date':
      return failure('expected a valid date');
    case 'invalid_intersection_types':
      return failure('does not match both parts of an intersection');
    default:
      // `custom`: a refinement's message is the author's words for the model.
      return failure(oneLine(issue.message) || 'is not valid');
  }
}

function unionOf(issue: Issue, path: PropertyKey[], input: Input): ZodFailure | undefined {
  const branches: ZodFailure[] = [];
  if (Array.isArray(issue.errors)) {
    // v4: one issue list per branch, paths relative to the union.
    for (const list of issue.errors as unknown[]) {
      const first: unknown = Array.isArray(list) ? list[0] : undefined;
      if (isIssue(first)) branches.push(explain(first, path, input));
    }
  } else if (Array.isArray(issue.unionErrors)) {
    // v3: one ZodError per branch, paths from the root.
    for (const branchError of issue.unionErrors as unknown[]) {
      const first = issuesOf(branchError)?.[0];
      if (first !== undefined) branches.push(explain(first, [], input));
    }
  }
  if (branches.length > 0) {
    const at = keyOf(path);
    for (const branch of branches) {
      branch.wrongShape =
        branch.types !== undefined && branch.values === undefined && branch.key === at;
    }
    return mostRelevant(branches);
  }
  if (Array.isArray(issue.options)) {
    // v4 discriminated union with no matching discriminator: the path is the discriminator.
    return explain({ ...issue, code: 'invalid_union_discriminator', path: [] }, path, input);
  }
  return undefined;
}

function allowedValues(issue: Issue): unknown[] {
  if (Array.isArray(issue.values)) return issue.values as unknown[];
  if (Array.isArray(issue.options)) return issue.options as unknown[];
  return [issue.expected];
}

function nestedIssues(issue: Issue): Issue[] {
  return Array.isArray(issue.issues) ? issue.issues.filter(isIssue) : [];
}

function isMissing(issue: Issue, input: Input, found: Found): boolean {
  if (input.known || 'input' in issue) return !found.known || found.value === undefined;
  // Without the input: v3 names the received type; v4's English message ends with it.
  return issue.received === 'undefined' || /received undefined$/.test(issue.message);
}

function receivedType(issue: Issue): string | undefined {
  if (typeof issue.received === 'string') return issue.received;
  return /received (\w+)$/.exec(issue.message)?.[1];
}

/** The value at `path` in the input, through own properties only. */
function valueAt(input: Input, path: readonly PropertyKey[]): Found {
  if (!input.known) return { known: false, value: undefined };
  let node = input.root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || typeof key === 'symbol') {
      return { known: false, value: undefined };
    }
    if (!Object.hasOwn(node, key)) return { known: false, value: undefined };
    node = (node as { [key: string | number]: unknown })[key];
  }
  return { known: true, value: node };
}

function keyOf(path: readonly PropertyKey[]): string {
  return JSON.stringify(
    path.map((segment) => (typeof segment === 'number' ? segment : String(segment))),
  );
}
