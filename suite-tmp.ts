import { execFileSync } from 'node:child_process';
import { ajvChecker } from './lib/validation/validation.js';
import { interpretSchema } from './lib/validation/interpreter/index.js';
import { registerLinearPatterns } from './lib/validation/linear-regexp.js';
registerLinearPatterns();
const repo = '/work/.mirror/json-schema-org+JSON-Schema-Test-Suite/repo';
const git = (...a: string[]) => execFileSync('git', ['-C', repo, ...a], { encoding: 'utf8', maxBuffer: 1 << 26 });
for (const draft of ['draft2020-12', 'draft7']) {
  const files = git('ls-tree', '--name-only', 'HEAD', `tests/${draft}/`).trim().split('\n').filter((f) => f.endsWith('.json'));
  let total = 0, ajvWrong = 0, intWrong = 0, disagree = 0, refused = 0;
  const byFile: Record<string, number[]> = {};
  for (const file of files) {
    const groups = JSON.parse(git('show', `HEAD:${file}`)) as { description: string; schema: unknown; tests: { description: string; data: unknown; valid: boolean }[] }[];
    for (const g of groups) {
      let schema = g.schema as any;
      if (typeof schema === 'boolean') continue;
      if (draft === 'draft7' && schema.$schema === undefined) schema = { $schema: 'http://json-schema.org/draft-07/schema#', ...schema };
      let a: any, i: any;
      try { a = ajvChecker(schema, 't', 'native'); } catch { a = undefined; }
      try { i = interpretSchema(schema, 't', 'native'); } catch { i = undefined; }
      for (const t of g.tests) {
        total++;
        const run = (c: any) => { if (!c) return 'refused'; try { return c(t.data) === undefined; } catch (e) { return 'threw'; } };
        const ra = run(a), ri = run(i);
        if (ra === 'refused' || ri === 'refused') { refused++; const k = 'R:' + file.split('/').pop()! + (ra==='refused'?':ajv':'') + (ri==='refused'?':int':''); (byFile[k] ??= [0])[0]++; }
        if (ra !== t.valid && ra !== 'refused') { ajvWrong++; const k='WA:'+file.split('/').pop(); (byFile[k] ??= [0])[0]++; }
        if (ri !== t.valid && ri !== 'refused') { intWrong++; const k='WI:'+file.split('/').pop(); (byFile[k] ??= [0])[0]++; }
        if (ra !== ri && ra !== 'refused' && ri !== 'refused') { disagree++; const k = file.split('/').pop()!; (byFile[k] ??= [0])[0]++; }
      }
    }
  }
  console.log(draft, { total, ajvWrong, intWrong, disagree, refused });
  console.log(JSON.stringify(byFile));
}
