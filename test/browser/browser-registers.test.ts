/**
 * What the browser entry registers when asked: its `registerZod3` and `registerLinearPatterns`
 * (and `registerAjv` from `agenttool/schema`) carry what they register into the bundle, and the
 * bundle runs where there is no Node to load it from.
 */
import { expect } from 'chai';
import { runInNewContext } from 'node:vm';
import { browserBuild } from '../support/bundle.js';
import { scaled } from '../support/time.js';

/** Runs a browser bundle of `page` (IIFE) in a context with no `process`, and returns its logs. */
async function run(page: string): Promise<unknown[]> {
  const { outputFiles } = await browserBuild(page, { format: 'iife' });
  const printed: unknown[] = [];
  runInNewContext(outputFiles![0]!.text, {
    console: { log: (value: unknown) => printed.push(value) },
  });
  return printed;
}

describe('the browser entry’s registrations', function () {
  this.timeout(scaled(60_000));

  it('registerZod3 carries zod-to-json-schema: a zod 3 schema gives its JSON Schema', async () => {
    const printed = await run(`
import { registerZod3, tool } from 'agenttool';
import { z } from 'zod/v3';
registerZod3();
const t = tool({ name: 'a', description: 'A.', parameters: z.object({ s: z.string() }), execute: ({ s }) => s });
console.log(JSON.stringify(t.parameters));
`);
    expect(printed).to.deep.equal([
      '{"type":"object","properties":{"s":{"type":"string"}},"required":["s"]}',
    ]);
  });

  it('registerLinearPatterns carries RE2: a pattern that needs backtracking is refused', async () => {
    const printed = await run(`
import { registerLinearPatterns } from 'agenttool';
import { compileValidator } from 'agenttool/schema';
registerLinearPatterns();
const v = compileValidator({ type: 'object', properties: { p: { type: 'string', pattern: '^a+$' } } });
console.log(JSON.stringify(v.parse('{"p":"aa"}')));
try {
  compileValidator({ type: 'object', properties: { p: { type: 'string', pattern: '(a)\\\\1' } } });
  console.log('compiled');
} catch (err) {
  console.log(err.name);
}
`);
    expect(printed).to.deep.equal(['{"p":"aa"}', 'SchemaError']);
  });

  it('registerAjv carries ajv: codeGeneration checks with it', async () => {
    const printed = await run(`
import { compileValidator, registerAjv } from 'agenttool/schema';
registerAjv();
const v = compileValidator({ type: 'object', required: ['a'], properties: { a: { type: 'string', pattern: '^x' } } }, { codeGeneration: true });
console.log(JSON.stringify(v.parse('{"a":"xy"}')));
try { v.parse('{}'); } catch (err) { console.log(err.message); }
`);
    expect(printed).to.deep.equal([
      '{"a":"xy"}',
      'invalid arguments: missing required property "a"',
    ]);
  });
});
