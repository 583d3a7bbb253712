/**
 * Which failure to report when every branch of a union failed, shared by the ajv and zod
 * messages.
 *
 * @module
 */
import { describeExpected, joinAlternatives, listValues } from './format.js';

/** One branch's failure, located by `where` (a path of the caller's choice). */
export interface Failure<W> {
  where: W;
  /** Equal for equal locations. */
  key: string;
  /** How far into the value the location is: 0 at the root. */
  depth: number;
  detail: string;
  /** How the value found at the location reads in a message; undefined when it is not known. */
  got: string | undefined;
  /** The types the location would have accepted, when the failure was a type check. */
  types?: string[];
  /** The values the location would have accepted, when the failure was a const or enum check. */
  values?: unknown[];
  /**
   * A type check failed where a union chooses between shapes: the branch was for another kind of
   * value, the weakest evidence of what was meant.
   */
  wrongShape?: boolean;
}

/**
 * The failure to report among those of a union whose every branch failed.
 *
 * The failure that got furthest wins: one that is not a wrong shape, then one deeper in the value,
 * then one on something other than a const or enum (a discriminator that did not match says the
 * branch was not the one meant); the earliest wins a tie. When it is a type or value failure, the
 * message lists everything the failures at its location would have accepted there (`expected
 * string or null, got 1`, `expected an integer or one of ["a", "b"], got "c"`).
 */
export function mostRelevant<W>(failures: readonly Failure<W>[]): Failure<W> {
  let best = failures[0]!;
  let bestRank = rank(best);
  for (const failure of failures.slice(1)) {
    const r = rank(failure);
    const better =
      r[0] !== bestRank[0]
        ? r[0] > bestRank[0]
        : r[1] !== bestRank[1]
          ? r[1] > bestRank[1]
          : r[2] > bestRank[2];
    if (better) {
      best = failure;
      bestRank = r;
    }
  }
  if (best.types === undefined && best.values === undefined) return best;
  const key = best.key;
  return merged(
    failures.filter((f) => f.key === key && (f.types !== undefined || f.values !== undefined)),
  );
}

function rank(failure: Failure<unknown>): [number, number, number] {
  return [failure.wrongShape === true ? 0 : 1, failure.depth, failure.values !== undefined ? 0 : 1];
}

function merged<W>(branches: readonly Failure<W>[]): Failure<W> {
  const types = [...new Set(branches.flatMap((b) => b.types ?? []))];
  const values: unknown[] = [];
  const seen = new Set<string>();
  for (const value of branches.flatMap((b) => b.values ?? [])) {
    const id = JSON.stringify(value) ?? String(value);
    if (!seen.has(id)) {
      seen.add(id);
      values.push(value);
    }
  }
  const base = branches[0]!;
  const got = base.got === undefined ? '' : `, got ${base.got}`;
  const failure: Failure<W> = {
    ...base,
    types: undefined,
    values: undefined,
    wrongShape: undefined,
  };
  if (types.length > 0) failure.types = types;
  if (values.length > 0) failure.values = values;
  if (values.length === 0)
    return { ...failure, detail: `expected ${joinAlternatives(types)}${got}` };
  const accepted =
    values.length === 1 ? describeExpected(values[0]) : `one of ${listValues(values)}`;
  if (types.length === 0) return { ...failure, detail: `expected ${accepted}${got}` };
  // Types first: a list of values reads last, where its brackets end it.
  const alternatives = [...types.map(withArticle), accepted];
  return { ...failure, detail: `expected ${joinAlternatives(alternatives)}${got}` };
}

/** `a string`, `an integer`, `null`. */
export function withArticle(word: string): string {
  if (word === 'null') return word;
  // `u` words here (uri, uuid, url) are said with a consonant.
  return /^[aeio]/.test(word) ? `an ${word}` : `a ${word}`;
}
