/**
 * The built JavaScript ships without the sources' comments (scripts/strip-comments.ts, a step of
 * `npm run build`), the same program otherwise; the `.d.ts` keep the documentation.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { transform } from 'esbuild';
import ts from 'typescript';
import { emittedScripts, stripComments } from '../../scripts/strip-comments.js';
import { root } from '../support/cli.js';
import { buildPackage } from '../support/package.js';
import { scaled } from '../support/time.js';

/** Comments a bundler, a minifier or a licence check reads. */
const kept = [
  '/*!',
  '//!',
  '@license',
  '@preserve',
  // `/*#__PURE__*/` or `/* @__PURE__ */`: esbuild writes either as the latter.
  '__PURE__',
  '__NO_SIDE_EFFECTS__',
  'webpackIgnore',
  'webpackChunkName',
  '@vite-ignore',
];

/** How many times `marker` occurs in `text`. */
function count(text: string, marker: string): number {
  return text.split(marker).length - 1;
}

/** The program `code` holds, whatever its layout and comments: to compare two emits of it. */
async function program(code: string): Promise<string> {
  const result = await transform(code, {
    loader: 'js',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    charset: 'utf8',
  });
  return result.code;
}

/** The sources `npm run build` compiles, with the options it compiles them with. */
function buildSources(): { files: string[]; options: ts.CompilerOptions } {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.build.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (parsed === undefined) throw new Error('tsconfig.build.json could not be read');
  // Every source is an ES module (package.json's "type"), which transpileModule cannot look up.
  return { files: parsed.fileNames, options: { ...parsed.options, module: ts.ModuleKind.ESNext } };
}

/** Where `tsc -p tsconfig.build.json` writes the JavaScript of `source`. */
function emitted(source: string): string {
  return join(root, 'dist', relative(root, source).replace(/\.ts$/, '.js'));
}

describe('the built JavaScript, without comments', function () {
  this.timeout(scaled(180_000));
  before(() => {
    buildPackage();
  });

  it('drops doc and line comments, keeps the ones bundlers and licence checks read', async () => {
    const code = [
      '#!/usr/bin/env node',
      '/*! a licence header */',
      '/** A doc comment. */',
      '// a line comment',
      '/** @license MIT */',
      'export const a = /* @__PURE__ */ make();',
      'export const b = /*#__PURE__*/ make();',
      'export const c = () => import(/* webpackIgnore: true */ "x");',
      'export const d = (name) => import(/* @vite-ignore */ name);',
      '/* @__NO_SIDE_EFFECTS__ */ export function make() { return {}; /* the end */ }',
    ].join('\n');
    const out = await stripComments(code);
    expect(out.startsWith('#!/usr/bin/env node\n')).to.equal(true);
    for (const marker of ['/*! a licence header */', '@license MIT', 'webpackIgnore: true'])
      expect(out).to.include(marker);
    for (const marker of ['@__PURE__', '@__NO_SIDE_EFFECTS__', '@vite-ignore'])
      expect(out).to.include(marker);
    expect(count(out, '@__PURE__')).to.equal(2);
    for (const dropped of ['A doc comment', 'a line comment', 'the end'])
      expect(out).not.to.include(dropped);
    expect(await program(out)).to.equal(await program(code));
  });

  it('every .js in dist/ is its source as tsc compiles it, comments aside', async () => {
    const { files, options } = buildSources();
    expect(files.length).to.be.greaterThan(100);
    const scripts = new Set(await emittedScripts(join(root, 'dist')));
    const differing: string[] = [];
    const commented: string[] = [];
    for (const source of files) {
      const out = emitted(source);
      expect(scripts.has(out), `${out} was built`).to.equal(true);
      const shipped = readFileSync(out, 'utf8');
      const { outputText } = ts.transpileModule(readFileSync(source, 'utf8'), {
        compilerOptions: options,
        fileName: source,
      });
      if ((await program(shipped)) !== (await program(outputText))) differing.push(out);
      // Stripping again changes nothing: no comment is left that the step drops.
      if ((await stripComments(shipped)) !== shipped) commented.push(out);
    }
    expect(differing, 'not the compiled source').to.deep.equal([]);
    expect(commented, 'comments left in').to.deep.equal([]);
  });

  it('keeps every comment of the sources that bundlers and licence checks read', () => {
    const lost: string[] = [];
    for (const file of buildSources().files) {
      const source = readFileSync(file, 'utf8');
      const shipped = readFileSync(emitted(file), 'utf8');
      // At least as many: esbuild marks a few calls it knows are pure (`new Map()`) itself.
      for (const marker of kept)
        if (count(shipped, marker) < count(source, marker)) lost.push(`${marker} in ${file}`);
    }
    expect(lost).to.deep.equal([]);
  });

  it("leaves the .d.ts their documentation: the editor's hover text", () => {
    const types = readFileSync(join(root, 'dist', 'lib', 'tool.d.ts'), 'utf8');
    expect(types).to.match(
      /\*\/\nexport declare function tool</,
      "tool()'s doc comment, above its declaration",
    );
    expect(types).to.include('The returned value decides what the model sees');
    const script = readFileSync(join(root, 'dist', 'lib', 'tool.js'), 'utf8');
    expect(script).not.to.include('The returned value decides what the model sees');
  });
});
