/**
 * The official JSON Schema Test Suite (draft 2020-12 and draft-07, vendored in
 * test/data/json-schema-test-suite) against both of agenttool's engines: ajv's generated code
 * (Node) and the interpreter (browsers, strict CSPs). Every case is either refused by both, with a
 * SchemaError (a keyword they do not support, a reference outside the schema), or answered by
 * both as the suite says, but for the deviations listed below, which both answer alike: the two
 * engines never disagree, and none ignores a keyword it does not check.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { SchemaError } from '../../index.js';
import { interpretSchema } from '../../lib/validation/interpreter/index.js';
import { registerLinearPatterns } from '../../lib/validation/linear-regexp.js';
import { ajvChecker } from '../../lib/validation/validation.js';

registerLinearPatterns();

interface Case {
  description: string;
  data: unknown;
  valid: boolean;
}
interface Group {
  description: string;
  schema: unknown;
  tests: Case[];
}

/**
 * Where both engines answer other than the suite, on purpose or as a known limit, by file and
 * group (every case of the group, or the cases named).
 */
const DEVIATIONS: Record<string, Record<string, { why: string; cases?: string[] }>> = {
  'format.json': {
    '*': {
      why: 'formats are asserted (date-time, email, uri, ...: see compileValidator), where 2020-12 makes them annotations by default',
    },
  },
  'properties.json': {
    'properties whose names are Javascript object property names': {
      why: 'a "__proto__" key in the arguments is not checked against the schema of "__proto__"',
      cases: ['__proto__ not valid'],
    },
  },
  'vocabulary.json': {
    '*': { why: 'a meta-schema’s $vocabulary is not read' },
  },
  'ref.json': {
    'ref overrides any sibling keywords': {
      why: 'draft-07: the keywords beside a $ref are checked too, as 2019-09 and later do',
    },
    '$ref prevents a sibling $id from changing the base uri': {
      why: 'draft-07: a sibling $id still changes the base URI, as 2019-09 and later do',
    },
  },
};

function deviation(file: string, group: string, test: string): string | undefined {
  const entries = DEVIATIONS[file];
  const entry = entries?.[group] ?? entries?.['*'];
  if (entry === undefined) return undefined;
  return entry.cases === undefined || entry.cases.includes(test) ? entry.why : undefined;
}

type Checker = (value: unknown) => unknown;
type Answer = boolean | 'refused';

function compile(make: () => Checker): Checker | 'refused' {
  try {
    return make();
  } catch (err) {
    if (err instanceof SchemaError) return 'refused';
    throw err;
  }
}

function answer(checker: Checker | 'refused', data: unknown): Answer {
  if (checker === 'refused') return 'refused';
  return checker(data) === undefined;
}

for (const draft of ['draft2020-12', 'draft7'] as const) {
  const suite = JSON.parse(
    readFileSync(new URL(`../data/json-schema-test-suite/${draft}.json`, import.meta.url), 'utf8'),
  ) as Record<string, Group[]>;

  describe(`the JSON Schema Test Suite, ${draft}, on both engines`, () => {
    for (const [file, groups] of Object.entries(suite)) {
      it(file, () => {
        const wrong: string[] = [];
        for (const group of groups) {
          if (typeof group.schema !== 'object' || group.schema === null) continue; // boolean schemas
          let schema = group.schema as Record<string, unknown>;
          if (draft === 'draft7' && schema.$schema === undefined)
            schema = { $schema: 'http://json-schema.org/draft-07/schema#', ...schema };
          const ajv = compile(() => ajvChecker(schema, 'suite', 'native'));
          const interpreted = compile(() => interpretSchema(schema, 'suite', 'native'));
          for (const test of group.tests) {
            const at = `${group.description} / ${test.description}`;
            const a = answer(ajv, test.data);
            const i = answer(interpreted, test.data);
            if (a !== i) wrong.push(`${at}: ajv ${String(a)}, interpreter ${String(i)}`);
            else if (
              a !== 'refused' &&
              a !== test.valid &&
              !deviation(file, group.description, test.description)
            )
              wrong.push(`${at}: both ${String(a)}, the suite ${String(test.valid)}`);
          }
        }
        expect(wrong).to.deep.equal([]);
      });
    }

    it('lists no deviation that is not one', () => {
      // Each listed deviation is met by some case: the list does not hide what now passes.
      for (const [file, groups] of Object.entries(DEVIATIONS)) {
        if (suite[file] === undefined) continue;
        for (const name of Object.keys(groups)) {
          if (name === '*') continue;
          if (!suite[file]!.some((g) => g.description === name)) continue;
          const group = suite[file]!.find((g) => g.description === name)!;
          let schema = group.schema as Record<string, unknown>;
          if (draft === 'draft7' && schema.$schema === undefined)
            schema = { $schema: 'http://json-schema.org/draft-07/schema#', ...schema };
          const checker = compile(() => interpretSchema(schema, 'suite', 'native'));
          const deviates = group.tests.some(
            (t) =>
              deviation(file, name, t.description) !== undefined &&
              answer(checker, t.data) !== t.valid,
          );
          expect(deviates, `${file}: ${name}`).to.equal(true);
        }
      }
    });
  });
}

describe('keywords neither engine checks', () => {
  const dynamic = {
    $defs: { node: { $dynamicAnchor: 'node', type: 'object' } },
    properties: { next: { $dynamicRef: '#node' } },
  };
  for (const [name, make] of [
    ['ajv', (s: Record<string, unknown>) => ajvChecker(s, 'linked', 'native')],
    ['the interpreter', (s: Record<string, unknown>) => interpretSchema(s, 'linked', 'native')],
  ] as const) {
    it(`${name} refuses $dynamicRef, $recursiveRef and an empty enum, saying so`, () => {
      expect(() => make(dynamic)).to.throw(
        SchemaError,
        'tool "linked": schema: $dynamicRef is not supported: a schema that uses it is refused rather than checked in part',
      );
      expect(() => make({ properties: { a: { $recursiveRef: '#' } } })).to.throw(
        SchemaError,
        '$recursiveRef is not supported',
      );
      expect(() => make({ properties: { a: { enum: [] } } })).to.throw(
        SchemaError,
        'enum must have at least one value',
      );
      // The words as data are data: a const holding them is no use of them.
      expect(() => make({ properties: { a: { const: { $dynamicRef: '#x' } } } })).not.to.throw();
    });
  }
});
