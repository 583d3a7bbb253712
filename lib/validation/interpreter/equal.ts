/**
 * Deep equality of JSON values, as ajv's `const`, `enum` and `uniqueItems` compare them.
 *
 * @module
 */

/** Whether `a` and `b` are the same JSON value: arrays item by item, objects key by key. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    // NaN never comes from JSON, but a schema may hold one: it equals itself, as in fast-deep-equal.
    return a !== a && b !== b;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
      return false;
  }
  return true;
}

/**
 * A text that is the same for two values exactly when {@link jsonEqual} holds between them: keys
 * sorted (objects are equal whatever their key order), numbers as `String` writes them (`1` and
 * `1.0` parse to the same number; `0` and `-0` both write `0`; `Infinity`, which JSON.parse makes
 * of `1e400`, stays distinct from `null`), each kind marked so that no two kinds collide.
 */
export function jsonKey(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return String(value);
    case 'boolean':
      return value ? 't' : 'f';
    case 'undefined':
      return 'u';
    case 'object': {
      if (value === null) return 'n';
      if (Array.isArray(value)) {
        let key = '[';
        for (let i = 0; i < value.length; i++) key += (i === 0 ? '' : ',') + jsonKey(value[i]);
        return `${key}]`;
      }
      let key = '{';
      for (const name of Object.keys(value).sort())
        key += `${key === '{' ? '' : ','}${JSON.stringify(name)}:${jsonKey((value as Record<string, unknown>)[name])}`;
      return `${key}}`;
    }
    default:
      return `?${String(value)}`;
  }
}

/**
 * The pair of equal items ajv's `uniqueItems` reports, `[i, j]` with `j < i`, or undefined when
 * every item is distinct. ajv compares every pair from the end (`i` from the last item down, `j`
 * from `i - 1` down) and stops at the first equal one: the largest `i` equal to an earlier item,
 * with the largest such `j`. One pass over the items, each hashed once by {@link jsonKey}, finds
 * the same pair in time linear in the size of the array, where comparing pairs takes quadratic
 * time (seconds for 20,000 objects).
 */
export function lastDuplicate(items: readonly unknown[]): [number, number] | undefined {
  if (items.length < 2) return undefined;
  const seen = new Map<string, number>();
  let found: [number, number] | undefined;
  for (let i = 0; i < items.length; i++) {
    const key = jsonKey(items[i]);
    const j = seen.get(key);
    if (j !== undefined) found = [i, j];
    seen.set(key, i);
  }
  return found;
}
