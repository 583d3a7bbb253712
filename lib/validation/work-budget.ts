/**
 * What checking one call's arguments may cost, whichever engine checks them. A schema from
 * elsewhere can make the work grow far beyond the size of the arguments: `anyOf` branches that
 * each lead through `$ref` to another such `anyOf` double the work at every level (2^26 checks for
 * a 1.4 KB schema), and a pattern's RE2 program, run over a long string when RE2's state cache
 * overflows, costs its size times the string's length (`(a|b|c|d|e|f|g|h|i|j){1000}$`: 3,003
 * instructions, a minute for a 1 MB string). Both are counted as the check runs, and a check that
 * would go past its budget stops with a {@link WorkLimitError}: the call fails with one line, at
 * once, and the process goes on.
 *
 * @module
 */
import { quote } from './format.js';

/**
 * `$ref`s one check may follow: this many, and one more for every four characters of the
 * arguments (a recursive schema follows about one per value, and a value with its separators
 * takes a few characters). A fan-out spends about 2 µs a reference.
 */
export const BASE_REFERENCES = 10_000;

/**
 * Matching steps one check may spend on patterns: this many, and 8 more for every character of
 * the arguments. Each match counts the string's length times the pattern's RE2 program size, the
 * most RE2 may spend on it; about 5 million such steps a second where RE2's state cache overflows
 * and it falls back to simulating the program, far more where its cache holds.
 */
export const BASE_MATCHING = 1_000_000;

/** A check that went past its budget (see the module); the message is one line. */
export class WorkLimitError extends Error {
  override readonly name = 'WorkLimitError';
}

let references = Infinity;
let matching = Infinity;
let referenceBudget = 0;
let matchingBudget = 0;

/**
 * Runs `check(value)` with the budget of one check of arguments `size` characters long (their JSON
 * text); outside of it nothing is counted. Checks nest (one run inside another has its own). It
 * runs on every call: the outer budget is kept in locals and no closure is made.
 */
export function withWorkBudget<V, T>(size: number, check: (value: V) => T, value: V): T {
  const outerReferences = references;
  const outerMatching = matching;
  const outerReferenceBudget = referenceBudget;
  const outerMatchingBudget = matchingBudget;
  references = referenceBudget = BASE_REFERENCES + Math.ceil(size / 4);
  matching = matchingBudget = BASE_MATCHING + 8 * size;
  try {
    return check(value);
  } finally {
    references = outerReferences;
    matching = outerMatching;
    referenceBudget = outerReferenceBudget;
    matchingBudget = outerMatchingBudget;
  }
}

/** Counts one `$ref` followed; throws a WorkLimitError past the budget. */
export function spendReference(): void {
  if (--references < 0)
    throw new WorkLimitError(
      `the schema follows more than ${referenceBudget} references ($ref) on these arguments`,
    );
}

/**
 * Counts matching `pattern`, whose RE2 program has `program` instructions, against a string of
 * `length` characters; throws a WorkLimitError, before any matching, past the budget.
 */
export function spendMatching(pattern: string, program: number, length: number): void {
  matching -= program * Math.max(length, 1);
  if (matching < 0)
    throw new WorkLimitError(
      `matching pattern ${quote(pattern)} (${program} RE2 instructions) against a string of ${length} characters would take this check past its ${matchingBudget} matching steps`,
    );
}
