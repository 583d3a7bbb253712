/**
 * dist/ keeps the `.d.ts` an entry point's types load and no other (scripts/prune-types.ts, a step
 * of `npm run build`): what a consumer's TypeScript reads is all there, and nothing ships unread.
 */
import { readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { reachableTypes, typeEntries } from '../../scripts/prune-types.js';
import { root } from '../support/cli.js';
import { consumerCompilerOptions, consumerFolder } from '../support/package.js';
import { scaled } from '../support/time.js';

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
};
/** `agenttool`, `agenttool/operators`, …: every entry point with types. */
const entries = Object.keys(manifest.exports)
  .filter((entry) => entry !== './package.json')
  .map((entry) => join('agenttool', entry));

/** The `.d.ts` files in dist/. */
function shippedTypes(): string[] {
  return (readdirSync(join(root, 'dist'), { recursive: true }) as string[])
    .filter((file) => file.endsWith('.d.ts'))
    .map((file) => join(root, 'dist', file))
    .sort();
}

/** A consumer importing every entry point, type-checked with skipLibCheck off. */
function compileConsumer(): ts.Program {
  const dir = consumerFolder('every-entry-consumer');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const app = join(dir, 'app.ts');
  writeFileSync(
    app,
    entries.map((entry, i) => `export * as entry${i} from '${entry}';\n`).join(''),
  );
  const { options, errors } = ts.convertCompilerOptionsFromJson(
    {
      ...consumerCompilerOptions,
      lib: ['es2022', 'dom'],
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
      skipLibCheck: false,
      noEmit: true,
    },
    dir,
  );
  if (errors.length > 0)
    throw new Error(
      errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'),
    );
  return ts.createProgram([app], options);
}

describe('the shipped declarations', function () {
  this.timeout(scaled(180_000));
  let program: ts.Program;
  before(() => {
    program = compileConsumer();
  });

  it('every entry point type-checks with skipLibCheck off: no declaration it loads is missing', () => {
    expect(entries).to.include.members(['agenttool', 'agenttool/redis', 'agenttool/wire']);
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(errors).to.deep.equal([]);
  });

  it('are exactly the ones TypeScript loads for the entry points', () => {
    const dist = `${realpathSync(join(root, 'dist'))}/`;
    const loaded = program
      .getSourceFiles()
      .map((file) => realpathSync(file.fileName))
      .filter((file) => file.startsWith(dist))
      .sort();
    expect(loaded.length).to.be.greaterThan(50);
    expect(shippedTypes()).to.deep.equal(loaded);
  });

  it('the build step follows the same imports TypeScript does', () => {
    const reached = [...reachableTypes(typeEntries(root))].sort();
    expect(reached).to.deep.equal(shippedTypes());
  });
});
