import { execFileSync } from 'node:child_process';
import { ajvChecker } from './lib/validation/validation.js';
import { interpretSchema } from './lib/validation/interpreter/index.js';
import { registerLinearPatterns } from './lib/validation/linear-regexp.js';
registerLinearPatterns();
const repo = '/work/.mirror/json-schema-org+JSON-Schema-Test-Suite/repo';
const git = (...a: string[]) => execFileSync('git', ['-C', repo, ...a], { encoding: 'utf8', maxBuffer: 1 << 26 });
for (const file of ['tests/draft2020-12/properties.json','tests/draft7/properties.json','tests/draft7/ref.json','tests/draft2020-12/unevaluatedProperties.json']) {
  const groups = JSON.parse(git('show', `HEAD:${file}`)) as any[];
  for (const g of groups) {
    let schema = g.schema; if (file.includes('draft7') && typeof schema === 'object' && !schema.$schema) schema = { $schema: 'http://json-schema.org/draft-07/schema#', ...schema };
    let a: any, i: any;
    try { a = ajvChecker(schema, 't', 'native'); } catch {}
    try { i = interpretSchema(schema, 't', 'native'); } catch {}
    for (const t of g.tests) {
      const ra = a ? a(t.data) === undefined : 'R'; const ri = i ? i(t.data) === undefined : 'R';
      if ((ra !== 'R' && ra !== t.valid) || (ri !== 'R' && ri !== t.valid)) console.log(file.split('/').slice(1).join('/'), '|', g.description, '|', t.description, '| want', t.valid, 'ajv', ra, 'int', ri);
    }
  }
}
