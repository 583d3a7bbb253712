/**
 * `compileValidator` in a browser bundle (`agenttool/schema`): by default it chooses as `tool()`
 * does, so a page carries neither ajv nor RE2 and never needs eval (which a Content-Security-Policy
 * without 'unsafe-eval' forbids and reports); ajv stays for whoever registers it.
 */
import { expect } from 'chai';
import { runInNewContext } from 'node:vm';
import { browserBuild, bundle } from '../support/bundle.js';
import { compileValidator, registerAjv } from '../../schema.js';
import { setGeneratedChecker } from '../../lib/validation/tool-checker.js';
import { scaled } from '../support/time.js';

const page = `
import { compileValidator } from 'agenttool/schema';
const validator = compileValidator({ type: 'object', properties: { path: { type: 'string' } } });
console.log(validator.parse('{"path":"x"}'));
`;

describe('compileValidator in a browser bundle', function () {
  this.timeout(scaled(60_000));

  it('carries neither ajv nor RE2, and checks with eval forbidden', async () => {
    const { metafile, gzipped } = await bundle(page);
    // What has code in the output, not all esbuild read.
    const inputs = Object.values(metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([path]) => path),
    );
    expect(inputs.filter((path) => /node_modules\/(ajv|re2js)\//.test(path))).to.deep.equal([]);
    // The interpreter and its messages: a fraction of what ajv alone weighs.
    expect(gzipped).to.be.below(30 * 1024);
    // Run where eval is forbidden, as on a page under a strict CSP: it checks all the same.
    const { outputFiles } = await browserBuild(page, { format: 'iife' });
    const printed: unknown[] = [];
    runInNewContext(
      outputFiles![0]!.text,
      { console: { log: (value: unknown) => printed.push(value) } },
      { contextCodeGeneration: { strings: false, wasm: false } },
    );
    expect(JSON.stringify(printed)).to.equal('[{"path":"x"}]');
  });

  it('uses ajv only where it is registered, and says what to call where it is missing', async () => {
    const { metafile } = await bundle(`
import { compileValidator, registerAjv } from 'agenttool/schema';
registerAjv();
console.log(compileValidator({ type: 'object' }, { codeGeneration: true }));
`);
    expect(
      Object.keys(metafile.inputs).some((path) => path.includes('node_modules/ajv/')),
    ).to.equal(true);
    // As in a bundle that registers none (the Node entry, if loaded here, did).
    setGeneratedChecker(undefined as never);
    expect(() => compileValidator({ type: 'object' }, { codeGeneration: true })).to.throw(
      "compileValidator: codeGeneration needs ajv: call registerAjv() from 'agenttool/schema' first",
    );
    // Registered (as the Node entry does), the same schema compiles either way, same answers.
    registerAjv();
    const schema = { type: 'object', required: ['a'] };
    const ajv = compileValidator(schema, { codeGeneration: true });
    const interpreted = compileValidator(schema, { codeGeneration: false });
    const message = 'invalid arguments: missing required property "a"';
    expect(() => ajv.parse('{}')).to.throw(message);
    expect(() => interpreted.parse('{}')).to.throw(message);
  });
});
