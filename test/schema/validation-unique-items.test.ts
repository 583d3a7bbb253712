import { expect } from 'chai';
import fc from 'fast-check';
import Ajv2020 from 'ajv/dist/2020.js';
import { ValidationError, type JsonSchema } from '../../index.js';
import { ENGINES } from '../support/validators.js';

/** The schema every case here checks: `{ v: [...] }` with `v`'s items unique. */
function holding(items?: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: { v: { type: 'array', uniqueItems: true, ...(items ? { items } : {}) } },
  };
}

/** What parsing `raw` gives: "ok" or the message of the ValidationError thrown. */
function outcome(parse: (raw: string) => unknown, raw: string): string {
  try {
    parse(raw);
    return 'ok';
  } catch (error) {
    expect(error).to.be.instanceOf(ValidationError);
    return (error as Error).message;
  }
}

/**
 * `n` distinct objects, each behind a proxy that counts every read of it (a property, its keys, a
 * descriptor) in `reads.count`: the work a check does on the items, counted rather than timed.
 */
function counted(n: number, reads: { count: number }): { v: object[] } {
  const handler: ProxyHandler<object> = {
    get: (target, key, receiver) => (reads.count++, Reflect.get(target, key, receiver)),
    has: (target, key) => (reads.count++, Reflect.has(target, key)),
    ownKeys: (target) => (reads.count++, Reflect.ownKeys(target)),
    getOwnPropertyDescriptor: (target, key) => (
      reads.count++,
      Reflect.getOwnPropertyDescriptor(target, key)
    ),
  };
  return {
    v: Array.from({ length: n }, (_, i) => new Proxy({ id: i, name: `item ${i}` }, handler)),
  };
}

// ajv as it comes, comparing every pair: the reference for which pair is reported.
const reference = new Ajv2020.default({ strict: false, allErrors: false });

for (const { engine, compileValidator } of ENGINES) {
  describe(`uniqueItems (${engine})`, () => {
    it('reads 10,000 distinct objects about ten times as often as 1,000, not a hundred', () => {
      const validator = compileValidator(holding({ type: 'object' }));
      const readsOf = (n: number): number => {
        const reads = { count: 0 };
        const value = counted(n, reads);
        validator.check(value);
        return reads.count;
      };
      const small = readsOf(1_000);
      const large = readsOf(10_000);
      expect(small).to.be.above(1_000);
      // Comparing every pair is 100 times the work for 10 times the items; hashing each once, 10.
      expect(large / small).to.be.below(12);
    });

    it('reports a duplicate among 20,000 objects, naming the pair ajv names', () => {
      const items: unknown[] = Array.from({ length: 20_000 }, (_, i) => ({ id: i, tags: [i] }));
      items[15_000] = { tags: [7], id: 7 };
      const message = outcome(
        (raw) => compileValidator(holding()).parse(raw),
        JSON.stringify({ v: items }),
      );
      expect(message).to.equal(
        'invalid arguments: v: expected unique items, got duplicates at [7] and [15000]',
      );
    });

    it("follows JSON Schema's equality: key order ignored, 1 and 1.0 equal, kinds distinct", () => {
      const cases: [string, boolean][] = [
        ['[1, 1.0]', false],
        ['[1.0, 1.00, 1]', false],
        ['[0, -0]', false],
        ['[0, false]', true],
        ['[1, true]', true],
        ['[1, "1"]', true],
        ['[null, false, 0, "", [], {}]', true],
        ['[{"a": false}, {"a": 0}]', true],
        ['[[1], [true]]', true],
        ['[[1], ["1"]]', true],
        ['[1e400, null]', true],
        ['[{"foo": "bar", "bar": "foo"}, {"bar": "foo", "foo": "bar"}]', false],
        ['[{"a": 1, "b": 2}, {"a": 2, "b": 1}]', true],
        ['[{"foo": {"bar": {"baz": true}}}, {"foo": {"bar": {"baz": false}}}]', true],
        ['[{"foo": {"bar": {"baz": true}}}, {"foo": {"bar": {"baz": true}}}]', false],
        ['[["foo"], ["foo"]]', false],
        ['[{}, [1], true, null, {}, 1]', false],
        ['[{"a": [1, {"b": 1}]}, {"a": [1, {"b": 1.0}]}]', false],
        ['[{"a": 1}, {"a": 1, "b": null}]', true],
        ['["a\\"b", "a\\u0022b"]', false],
      ];
      const validator = compileValidator(holding());
      for (const [items, unique] of cases)
        expect(outcome(validator.parse, `{"v": ${items}}`) === 'ok', items).to.equal(unique);
    });

    it('reports the same pair as pairwise ajv for random arrays', () => {
      const validator = compileValidator(holding());
      const check = reference.compile({ type: 'array', uniqueItems: true });
      const value = fc.oneof(
        fc.constantFrom(0, 1, 1.5, -0, '', 'a', true, false, null),
        fc.constantFrom([], [1], ['a', 1], {}, { a: 1 }, { b: 1, a: 1 }, { a: 1, b: 1 }),
      );
      fc.assert(
        fc.property(fc.array(value, { maxLength: 12 }), (items) => {
          const raw = JSON.stringify({ v: items });
          const expected = check(JSON.parse(raw).v)
            ? 'ok'
            : `invalid arguments: v: expected unique items, got duplicates at [${String(check.errors![0]!.params.j)}] and [${String(check.errors![0]!.params.i)}]`;
          expect(outcome(validator.parse, raw)).to.equal(expected);
        }),
        { numRuns: 300 },
      );
    });
  });
}
