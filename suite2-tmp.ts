import { execFileSync } from 'node:child_process';
import { ajvChecker } from './lib/validation/validation.js';
import { interpretSchema } from './lib/validation/interpreter/index.js';
import { registerLinearPatterns } from './lib/validation/linear-regexp.js';
registerLinearPatterns();
const repo = '/work/.mirror/json-schema-org+JSON-Schema-Test-Suite/repo';
const git = (...a: string[]) => execFileSync('git', ['-C', repo, ...a], { encoding: 'utf8', maxBuffer: 1 << 26 });
for (const file of ['tests/draft2020-12/enum.json','tests/draft2020-12/defs.json','tests/draft2020-12/not.json','tests/draft2020-12/ref.json','tests/draft7/definitions.json','tests/draft7/ref.json']) {
  const groups = JSON.parse(git('show', `HEAD:${file}`)) as any[];
  for (const g of groups) {
    if (typeof g.schema === 'boolean') continue;
    let ea = '', ei = '';
    try { ajvChecker(g.schema, 't', 'native'); } catch (e) { ea = (e as Error).message; }
    try { interpretSchema(g.schema, 't', 'native'); } catch (e) { ei = (e as Error).message; }
    if (ea || ei) console.log(file.split('/').slice(1).join('/'), '|', g.description, '| ajv:', ea.slice(0,100), '| int:', ei.slice(0,120));
  }
}
